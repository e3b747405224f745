// Redaction at capture (issue 29, item 1), through the hook commands `tracer
// init` installs, as Claude Code runs them: the snapshot in the cache and the
// summary hold no secret, their content ids are those of the redacted bytes, the
// agent's own transcript is untouched; a tool use loads no redaction at all; a
// broken team file, a catastrophic team pattern and a binary transcript never
// lose the event, and are logged with their code. A commit's subject, which the
// post-commit hook keeps in commit-links.jsonl, is redacted the same way.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, sandbox, tempDir } from '../helpers/cli.js';
import { spoolFolded } from '../helpers/spool.js';
import { projectDir, readJsonl } from '../capture/hook-fixtures.js';
import { gitIn } from '../capture/ledger-helpers.js';
import { contentId } from '../../src/core/content-id.js';
import { encodings } from './corpus-figures.js';
import { secretTranscript, SESSION_ID } from './transcript-fixture.js';

test.after.each(cleanup);

async function initialized() {
  const box = sandbox();
  const result = await box.run(['init', '--agents', 'claude-code']);
  assert.is(result.code, 0, result.stderr);
  return box;
}

function installedCommand(repo: string, event: string): string {
  const settings = JSON.parse(readFileSync(join(repo, '.claude/settings.json'), 'utf8'));
  for (const entry of settings.hooks[event] ?? [])
    for (const hook of entry.hooks) if (hook.command.endsWith(` hook claude-code ${event}`)) return hook.command;
  throw new Error(`no ${event} hook`);
}

/** Runs the installed hook command through the shell, as the agent does, and waits for its background fold. */
async function agentHook(box: { repo: string; home: string }, event: string, payload: object): Promise<void> {
  const result = spawnSync('sh', ['-c', installedCommand(box.repo, event)], {
    cwd: box.repo,
    input: JSON.stringify(payload),
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: box.home },
  });
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stdout, '');
  await spoolFolded(box.home);
}

function stop(box: { repo: string }, transcript: string) {
  return {
    session_id: SESSION_ID,
    transcript_path: transcript,
    cwd: box.repo,
    permission_mode: 'default',
    hook_event_name: 'Stop',
    stop_hook_active: false,
  };
}

function blobs(dir: string): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  const cache = join(dir, 'conversations');
  for (const prefix of existsSync(cache) ? readdirSync(cache) : []) {
    if (prefix.length !== 2) continue;
    for (const name of readdirSync(join(cache, prefix))) found.set(name, readFileSync(join(cache, prefix, name)));
  }
  return found;
}

function everythingUnder(dir: string): string {
  let all = '';
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    all += entry.isDirectory() ? everythingUnder(path) : `${readFileSync(path).toString('latin1')}\n`;
  }
  return all;
}

function hookErrors(home: string): Array<Record<string, any>> {
  return readJsonl(join(projectDir(home), 'hook-errors.log'));
}

test("Stop: the snapshot and the summary hold no secret, benign text stays byte for byte, the agent's transcript is untouched", async () => {
  const box = await initialized();
  const fixture = secretTranscript();
  const transcript = join(tempDir('redact-transcript-'), 'transcript.jsonl');
  writeFileSync(transcript, fixture.text);
  await agentHook(box, 'Stop', stop(box, transcript));

  const dir = projectDir(box.home);
  assert.is(readFileSync(transcript, 'utf8'), fixture.text, "the agent's transcript is the agent's");
  const [row] = readJsonl(join(dir, 'conversations.jsonl'));
  assert.ok(row, 'a snapshot was taken');
  assert.is(row!.redacted, true);
  const bytes = blobs(dir).get(row!.content_sha256)!;
  assert.is(createHash('sha256').update(bytes).digest('hex'), row!.content_sha256, 'the content id is the redacted bytes');
  assert.is(bytes.length, row!.size);
  const snapshot = bytes.toString('utf8');
  for (const line of snapshot.trimEnd().split('\n')) JSON.parse(line); // still JSON lines
  for (const benign of fixture.benign) assert.ok(snapshot.includes(benign), `benign text kept: ${benign.slice(0, 60)}`);
  const [summary] = readJsonl(join(dir, 'session-summaries.jsonl'));
  assert.match(summary!.summary, /^Done! The remote now uses \[REDACTED:github-token:[0-9a-f]{6}\]; rotate it when you can\.$/);
  assert.is(summary!.redacted, true);
  const stored = everythingUnder(join(box.home, 'projects'));
  for (const secret of fixture.secrets)
    for (const form of encodings(secret)) assert.not.ok(stored.includes(form), `a secret reached the store: ${secret.slice(0, 12)}…`);
  assert.equal(hookErrors(box.home), []);
  assert.is((statSync(join(box.home, 'redact-salt')).mode & 0o777).toString(8), '600');
});

test('a tool use loads no redaction: no salt is made, nothing is scanned', async () => {
  const box = await initialized();
  writeFileSync(join(box.repo, 'a.txt'), 'one\n');
  await agentHook(box, 'PostToolUse', {
    session_id: SESSION_ID,
    transcript_path: join(box.repo, 'none.jsonl'),
    cwd: box.repo,
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(box.repo, 'a.txt'), content: 'one\n' },
    tool_response: { type: 'create', filePath: join(box.repo, 'a.txt') },
  });
  assert.is(readJsonl(join(projectDir(box.home), 'traces.jsonl')).length, 1);
  assert.not.ok(existsSync(join(box.home, 'redact-salt')));
});

for (const [name, file, code, named] of [
  ['a malformed .tracer/redact.json', '{"rules": [', 'redact_rule_invalid', /not valid JSON/],
  [
    'a team rule that misses its sample',
    JSON.stringify({ rules: [{ id: 'acme', pattern: 'ACME-\\d{6}', samples: ['ACME-12'] }] }),
    'redact_rule_invalid',
    /"acme"/,
  ],
  [
    'a team pattern that backtracks catastrophically',
    JSON.stringify({ rules: [{ id: 'greedy', pattern: '(a+)+$', samples: ['aa'] }] }),
    'redact_rule_timeout',
    /"greedy"/,
  ],
] as const) {
  test(`${name}: the event is recorded with the built-in layers, and the problem is logged with its code`, async () => {
    const box = await initialized();
    mkdirSync(join(box.repo, '.tracer'));
    writeFileSync(join(box.repo, '.tracer', 'redact.json'), file);
    const github = `ghp_${'Z9y8X7w6V5'.repeat(3)}u4T3s2`;
    const transcript = join(tempDir('redact-transcript-'), 'transcript.jsonl');
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: `token ${github}\n${'a'.repeat(40)}!` } })}\n${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } })}\n`,
    );
    await agentHook(box, 'Stop', stop(box, transcript));
    const dir = projectDir(box.home);
    assert.is(readJsonl(join(dir, 'traces.jsonl')).length, 1, 'the event is recorded');
    const [row] = readJsonl(join(dir, 'conversations.jsonl'));
    const snapshot = blobs(dir).get(row!.content_sha256)!.toString();
    assert.not.ok(snapshot.includes(github), `the built-in layers ran ${JSON.stringify(hookErrors(box.home))}`);
    const errors = hookErrors(box.home);
    assert.equal(
      errors.map((error) => error.code),
      [code],
    );
    assert.match(errors[0]!.message, named);
  });
}

test('a binary transcript is snapshotted as it is: nothing to redact, nothing mangled, nothing lost', async () => {
  const box = await initialized();
  const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x81]), createHash('sha512').update('x').digest(), Buffer.alloc(4096, 0xc3)]);
  const transcript = join(tempDir('redact-transcript-'), 'transcript.bin');
  writeFileSync(transcript, bytes);
  await agentHook(box, 'Stop', stop(box, transcript));
  const dir = projectDir(box.home);
  const [row] = readJsonl(join(dir, 'conversations.jsonl'));
  assert.ok(blobs(dir).get(row!.content_sha256)!.equals(bytes));
  assert.equal(hookErrors(box.home), []);
});

test('redact.pii: e-mail addresses and phone numbers are redacted at capture once it is on', async () => {
  const box = await initialized();
  const set = await box.run(['config', 'set', 'redact.pii', 'true']);
  assert.is(set.code, 0, set.stderr);
  const transcript = join(tempDir('redact-transcript-'), 'transcript.jsonl');
  writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Mail jane.roe@example.com or call +1 415 555 0134.' }] } })}\n`,
  );
  await agentHook(box, 'Stop', stop(box, transcript));
  const [summary] = readJsonl(join(projectDir(box.home), 'session-summaries.jsonl'));
  assert.match(summary!.summary, /^Mail \[REDACTED:email-address:[0-9a-f]{6}\] or call \[REDACTED:phone-number:[0-9a-f]{6}\]\.$/);
});

/** A GitHub token's shape (`ghs_` and 36 letters and digits), made here: never a real credential. */
function githubToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `ghs_${[...randomBytes(36)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/** A commit through the post-commit hook `tracer init` installed, its spooled link folded; the link tracer wrote for it. */
function commitThroughHook(box: { repo: string; home: string }, message: string): Record<string, any> {
  gitIn(box.repo, ['commit', '-q', '--allow-empty', '-m', message], { home: box.home });
  const commit = gitIn(box.repo, ['rev-parse', 'HEAD']);
  const link = readJsonl(join(projectDir(box.home), 'commit-links.jsonl')).find((row) => row.commit === commit);
  assert.ok(link, `a commit link for ${commit}`);
  return link!;
}

function linksFile(home: string): string {
  return readFileSync(join(projectDir(home), 'commit-links.jsonl'), 'utf8');
}

test("a commit's subject: a token in it is stored as the transcript's placeholder, the link marked redacted; a benign subject stays byte for byte", async () => {
  const box = await initialized();
  const token = githubToken();
  // The agent session that led to the commit mentions the same token: it must read as the same placeholder in both.
  const transcript = join(tempDir('redact-transcript-'), 'transcript.jsonl');
  writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: `Set GH_TOKEN=${token} in .env.` }] } })}\n`,
  );
  await agentHook(box, 'Stop', stop(box, transcript));
  const [summary] = readJsonl(join(projectDir(box.home), 'session-summaries.jsonl'));
  const placeholder = /\[REDACTED:github-token:[0-9a-f]{6}\]/.exec(summary!.summary)?.[0];
  assert.ok(placeholder, summary!.summary);

  const secret = commitThroughHook(box, `add env with ${token} token`);
  assert.is(secret.subject, `add env with ${placeholder} token`, 'the same secret, the same placeholder');
  assert.is(secret.redacted, true, 'a push sends it as it is');
  assert.is(secret.id, contentId(secret, 'id'), 'the content id is that of the redacted link');

  const benign = 'fix sha 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 for 123e4567-e89b-12d3-a456-426614174000';
  const kept = commitThroughHook(box, benign);
  assert.is(kept.subject, benign);
  assert.ok(linksFile(box.home).includes(JSON.stringify(benign)), 'byte for byte in the file');
  assert.is(kept.redacted, true);

  for (const form of encodings(token)) {
    assert.not.ok(linksFile(box.home).includes(form), 'commit-links.jsonl holds no token');
    assert.not.ok(everythingUnder(join(box.home, 'projects')).includes(form), 'nor does anything else of the store');
  }
  assert.equal(hookErrors(box.home), []);
});

test("a team rule redacts a commit's subject too; a refused team file never costs the link: the built-in layers run, the problem is logged", async () => {
  const box = await initialized();
  mkdirSync(join(box.repo, '.tracer'));
  const rules = join(box.repo, '.tracer', 'redact.json');
  writeFileSync(rules, JSON.stringify({ rules: [{ id: 'acme', pattern: 'ACME-\\d{6}', samples: ['ACME-123456'] }] }));
  assert.match(commitThroughHook(box, 'deploy with ACME-654321').subject, /^deploy with \[REDACTED:acme:[0-9a-f]{6}\]$/);

  writeFileSync(rules, '{"rules": [');
  const token = githubToken();
  const link = commitThroughHook(box, `rotate ${token}`);
  assert.match(link.subject, /^rotate \[REDACTED:github-token:[0-9a-f]{6}\]$/);
  assert.is(link.redacted, true);
  assert.not.ok(linksFile(box.home).includes(token));
  const errors = hookErrors(box.home);
  assert.equal(
    errors.map((error) => [error.event, error.code]),
    [['post-commit', 'redact_rule_invalid']],
  );
});

test('redaction that cannot run (a spoilt salt) never costs the commit link: it is written without its subject, and logged', async () => {
  const box = await initialized();
  writeFileSync(join(box.home, 'redact-salt'), 'not a salt\n');
  const token = githubToken();
  const link = commitThroughHook(box, `rotate ${token}`);
  assert.is(link.subject, undefined);
  assert.is(link.redacted, undefined, 'nothing was redacted, nothing claims it');
  assert.ok(link.ledger_sha, 'the rest of the link is there');
  assert.not.ok(linksFile(box.home).includes(token));
  const errors = hookErrors(box.home);
  assert.equal(
    errors.map((error) => [error.event, error.code]),
    [['post-commit', 'redaction_unavailable']],
  );
  assert.match(errors[0]!.message, /redact-salt is not 64 hex digits.*written without its subject/);
});

test.run();
