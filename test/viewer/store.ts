import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath, hook, payload, projectDir } from '../capture/hook-fixtures.js';
import { git, gitWith, sandbox, tempDir } from '../helpers/cli.js';

/**
 * A store built the way users get one: `tracer hook` with the agents' recorded
 * payloads (Claude Code, Codex, Cursor), real commits, `tracer commit-link`.
 * The Claude transcript ends with hostile text (script tags, event handlers,
 * a javascript: link) that the viewer must show as text and never run; its
 * last assistant message becomes the session summary, so the hostile text is
 * in a summary too. A torn line ends traces.jsonl, as a crash leaves it.
 */
export const CLAUDE = '0d8f6c1e-5a2b-4c47-9d7e-3f1b2a6c9e10';
export const CODEX = '019a2f4e-7c1d-7b90-a3e5-6f2d8c0b1a44';
export const CURSOR = 'c7a1e9b2-44f0-4e0c-8a51-2b9d6f3e7a01';
export const GREET = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';
export const HOSTILE = [
  'Done. <script>window.__pwned = "script"</script>',
  '<img src="x" onerror="window.__pwned = \'onerror\'">',
  '[click me](javascript:window.__pwned=%22link%22) and **bold**',
].join('\n\n');

function hostileLines(): string {
  const base = { isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: CLAUDE, version: '2.0.14', gitBranch: 'main' };
  const user = {
    ...base,
    type: 'user',
    uuid: 'evil-1',
    timestamp: '2025-10-14T09:13:00.000Z',
    message: { role: 'user', content: 'Show me <b>bold</b> and <script>window.__pwned = "user"</script>' },
  };
  const assistant = {
    ...base,
    type: 'assistant',
    uuid: 'evil-2',
    timestamp: '2025-10-14T09:13:02.000Z',
    message: {
      id: 'msg_evil',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: HOSTILE }],
    },
  };
  return `${JSON.stringify(user)}\n${JSON.stringify(assistant)}\n`;
}

export async function recordedStore(options: { hostile?: boolean } = {}) {
  const box = sandbox();
  const transcripts = tempDir('viewer-transcripts-');
  const claudeTranscript = join(transcripts, 'claude.jsonl');
  copyFileSync(fixturePath('claude-code', 'transcript.jsonl'), claudeTranscript);
  if (options.hostile !== false) appendFileSync(claudeTranscript, hostileLines());
  const codexTranscript = join(transcripts, 'codex.jsonl');
  copyFileSync(fixturePath('codex', 'transcript.jsonl'), codexTranscript);
  const cursorTranscript = join(transcripts, 'cursor.jsonl');
  copyFileSync(fixturePath('cursor', 'transcript.jsonl'), cursorTranscript);
  const send = (agent: string, event: string, transcript: string, name = event) =>
    hook(agent, event, payload(agent, name, { repo: box.repo, transcript }), { cwd: box.repo, home: box.home });

  mkdirSync(join(box.repo, 'src'));
  writeFileSync(join(box.repo, 'src/greet.ts'), GREET);
  await send('claude-code', 'UserPromptSubmit', claudeTranscript);
  await send('claude-code', 'PostToolUse', claudeTranscript, 'PostToolUse.Write');
  await send('claude-code', 'Stop', claudeTranscript);
  appendFileSync(join(box.repo, 'src/greet.ts'), '// reviewed by a person\n');
  git(box.repo, 'add', '-A');
  git(box.repo, 'commit', '-q', '-m', 'greet helper');
  await link(box);
  const greetCommit = git(box.repo, 'rev-parse', 'HEAD');

  writeFileSync(join(box.repo, 'CHANGELOG.md'), '# Changelog\n\n## 1.1.0\n- Configurable retries.\n');
  mkdirSync(join(box.repo, 'pkg'));
  writeFileSync(join(box.repo, 'pkg/version.txt'), '1.1.0\n');
  await send('codex', 'PostToolUse', codexTranscript);
  await send('codex', 'Stop', codexTranscript);

  mkdirSync(join(box.repo, 'lib'));
  writeFileSync(
    join(box.repo, 'lib/retry.py'),
    'def retry(fn, attempts=3):\n    for _ in range(attempts):\n        pass\n\n\nDEFAULT_ATTEMPTS = 3\n',
  );
  await send('cursor', 'afterFileEdit', cursorTranscript);
  await send('cursor', 'stop', cursorTranscript);
  git(box.repo, 'add', '-A');
  // A second after the first: views list commits newest first, and two commits of one second would tie.
  const later = secondAfter(box.repo, greetCommit);
  gitWith({ GIT_AUTHOR_DATE: later, GIT_COMMITTER_DATE: later }, box.repo, 'commit', '-q', '-m', 'changelog, version and retries');
  await link(box);
  const releaseCommit = git(box.repo, 'rev-parse', 'HEAD');

  const dir = projectDir(box.home);
  appendFileSync(join(dir, 'traces.jsonl'), '{"id":"torn","ts":"2025-10-14T');
  return { ...box, dir, greetCommit, releaseCommit, projectId: readProjectId(box.repo) };
}

async function link(box: { run: (args: readonly string[]) => Promise<{ code: number; stderr: string }> }): Promise<void> {
  const linked = await box.run(['commit-link']);
  if (linked.code !== 0) throw new Error(`tracer commit-link failed: ${linked.stderr}`);
}

/** The project id tracer wrote on first capture (src/store/project.ts). */
function readProjectId(repo: string): string {
  const commonDir = git(repo, 'rev-parse', '--path-format=absolute', '--git-common-dir');
  return readFileSync(join(commonDir, 'tracer-id'), 'utf8').split('\n', 1)[0]!.trim();
}

/** A git date one second after `commit`'s committer time: commits made in one second would otherwise tie in a newest-first list. */
export function secondAfter(repo: string, commit: string): string {
  return `${Number(git(repo, 'show', '-s', '--format=%ct', commit)) + 1} +0000`;
}
