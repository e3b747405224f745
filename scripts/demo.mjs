#!/usr/bin/env node
// The README's first command: the main job of tracer, end to end, on this machine.
// Starts the embedded service, creates a project and a token, records agent activity
// on "machine A" through the hook commands, pushes it, pulls it on "machine B"
// (another TRACER_HOME and another clone), shows that both stores now hold the
// same data and that B reads A's attribution (blame, stats), then squash-merges a
// pull request "on the hosting side" and shows blame on main after B's git pull.
// Everything lives in a temporary folder that is removed at the end (--keep keeps it).
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'tracer.js');
if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  console.error('demo: tracer is not built yet; run npm install (or npm run build) first.');
  process.exit(1);
}

const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'tracer-demo-'));
const adminSecret = randomBytes(24).toString('hex');
const step = (text) => console.log(`\n▶ ${text}`);
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('TRACER_') && !key.startsWith('GIT_')));

function tracer(home, cwd, args, extraEnv = {}) {
  const shown = `tracer ${args.map((arg) => (arg.length > 40 ? `${arg.slice(0, 8)}…` : arg)).join(' ')}`;
  console.log(`  $ ${shown}`);
  try {
    const out = execFileSync(process.execPath, [bin, ...args], {
      cwd,
      env: { ...baseEnv, TRACER_HOME: home, NO_COLOR: '1', ...extraEnv },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const line of out.trimEnd().split('\n')) if (line) console.log(`    ${line}`);
    return out;
  } catch (error) {
    console.error(`demo: "${shown}" failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw error;
  }
}

function git(cwd, ...args) {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...baseEnv,
      GIT_AUTHOR_NAME: 'Demo',
      GIT_AUTHOR_EMAIL: 'demo@example.com',
      GIT_COMMITTER_NAME: 'Demo',
      GIT_COMMITTER_EMAIL: 'demo@example.com',
    },
  }).trim();
}

function startService() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', join(work, 'service'), '--log-level', 'warn'], {
      env: { ...baseEnv, TRACER_HOME: join(work, 'service-home'), TRACER_ADMIN_SECRET: adminSecret, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const match = /listening on (http:\/\/[^\s,]+)/.exec(buffer);
      if (match) {
        console.log(`  ${buffer.split('\n')[0]}`);
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({ child, url: match[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`tracer serve exited with ${code} before listening`)));
  });
}

/**
 * An agent session as the installed hooks report it: each step pipes the agent's
 * payload to `tracer hook`, exactly what Claude Code and Codex run; git's
 * post-commit step (`tracer commit-link`) then attributes the commit.
 */
function recordAgentSessions(home, repo) {
  const claude = { session_id: 'demo-claude-session', transcript_path: join(work, 'claude-session.jsonl'), cwd: repo };
  const send = (agent, event, payload) => hook(home, repo, agent, event, { ...payload, hook_event_name: event });
  send('claude-code', 'SessionStart', { ...claude, source: 'startup' });
  send('claude-code', 'UserPromptSubmit', { ...claude, prompt: 'Add an entry point and describe it in the README' });
  const app = "export function main() {\n  console.log('hello from the demo');\n}\n\nmain();\n";
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'app.js'), app);
  send('claude-code', 'PostToolUse', {
    ...claude,
    tool_name: 'Write',
    tool_input: { file_path: join(repo, 'src', 'app.js'), content: app },
  });
  writeFileSync(join(repo, 'README.md'), '# demo\n\nRun `node src/app.js`.\n');
  send('claude-code', 'PostToolUse', {
    ...claude,
    tool_name: 'Edit',
    tool_input: { file_path: join(repo, 'README.md'), old_string: '# demo\n', new_string: '# demo\n\nRun `node src/app.js`.\n' },
  });
  writeFileSync(
    claude.transcript_path,
    [
      { type: 'user', message: { role: 'user', content: 'Add an entry point and describe it in the README' } },
      {
        type: 'assistant',
        message: {
          id: 'msg_1',
          role: 'assistant',
          content: [{ type: 'text', text: 'Added src/app.js and a README line on how to run it.' }],
        },
      },
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join(''),
  );
  send('claude-code', 'Stop', { ...claude, stop_hook_active: false });

  // A long Codex session: its transcript is over 256 KiB, so push sends it through the blob routes.
  const codex = {
    session_id: 'demo-codex-session',
    turn_id: '1',
    transcript_path: join(work, 'codex-rollout.jsonl'),
    cwd: repo,
    model: 'gpt-5-codex',
  };
  writeFileSync(codex.transcript_path, Array.from({ length: 3000 }, (_, i) => `{"turn":${i},"content":"${'x'.repeat(100)}"}\n`).join(''));
  send('codex', 'Stop', { ...codex, last_assistant_message: 'Reviewed the entry point; nothing to change.' });

  writeFileSync(join(repo, 'src', 'app.js'), `${app}// reviewed by a person\n`);
  git(repo, 'add', 'src', 'README.md');
  // The post-commit hook tracer init installed has attributed it already; --verbose shows the result.
  git(repo, 'commit', '-q', '-m', 'Add the entry point');
  tracer(home, repo, ['commit-link', '--verbose']);
  return [claude.session_id, codex.session_id];
}

function hook(home, cwd, agent, event, payload) {
  console.log(`  $ tracer hook ${agent} ${event} < payload`);
  execFileSync(process.execPath, [bin, 'hook', agent, event], {
    cwd,
    env: { ...baseEnv, TRACER_HOME: home },
    input: JSON.stringify(payload),
    stdio: ['pipe', 'ignore', 'inherit'],
  });
}

function projectDirOf(initOutput) {
  return /data:\s+(.+)$/m.exec(initOutput)[1].trim();
}

function digest(projectDir) {
  const families = ['traces.jsonl', 'ledgers.jsonl', 'commit-links.jsonl', 'session-summaries.jsonl'];
  const ids = {};
  for (const file of families) {
    const path = join(projectDir, file);
    const lines = existsSync(path)
      ? readFileSync(path, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
    ids[file] = lines.map((row) => row.id ?? row.sha).sort();
  }
  const indexPath = join(projectDir, 'conversations', '_index.json');
  const index = existsSync(indexPath) ? JSON.parse(readFileSync(indexPath, 'utf8')) : {};
  const transcripts = Object.fromEntries(
    Object.entries(index).map(([id, sha]) => [
      id,
      createHash('sha256')
        .update(readFileSync(join(projectDir, 'conversations', sha.slice(0, 2), sha)))
        .digest('hex'),
    ]),
  );
  return { ids, transcripts };
}

let service;
try {
  console.log(`tracer demo, working in ${work}`);
  step('Start the trace service on embedded SQLite');
  service = await startService();
  const remoteUrl = `${service.url}/demo/web`;

  step('Create the project and a token through the admin routes');
  tracer(join(work, 'admin-home'), work, ['project', 'create', remoteUrl], { TRACER_ADMIN_SECRET: adminSecret });
  const token = tracer(join(work, 'admin-home'), work, ['token', 'create', remoteUrl, '--name', 'demo'], {
    TRACER_ADMIN_SECRET: adminSecret,
  }).trim();

  step('Machine A: a repository where an agent worked');
  const homeA = join(work, 'machine-a', 'tracer-home');
  const repoA = join(work, 'machine-a', 'repo');
  mkdirSync(repoA, { recursive: true });
  git(repoA, 'init', '-q', '-b', 'main');
  writeFileSync(join(repoA, 'README.md'), '# demo\n');
  git(repoA, 'add', '.');
  git(repoA, 'commit', '-q', '-m', 'Add README');
  const dirA = projectDirOf(tracer(homeA, repoA, ['init']));
  tracer(homeA, repoA, ['remote', 'add', 'origin', remoteUrl, '--token', token]);
  recordAgentSessions(homeA, repoA);
  tracer(homeA, repoA, ['context']);
  tracer(homeA, repoA, ['status']);

  step('Machine A: push');
  tracer(homeA, repoA, ['push']);
  // Session events that wrote no committed line wait for attribution; --full sends them too.
  tracer(homeA, repoA, ['push', '--full']);

  step('Machine B: another clone, another home, pull');
  const homeB = join(work, 'machine-b', 'tracer-home');
  const repoB = join(work, 'machine-b', 'repo');
  git(work, 'clone', '-q', repoA, repoB);
  const dirB = projectDirOf(tracer(homeB, repoB, ['init']));
  tracer(homeB, repoB, ['remote', 'add', 'origin', remoteUrl, '--token', token]);
  tracer(homeB, repoB, ['pull']);

  step('Result');
  const a = digest(dirA);
  const b = digest(dirB);
  for (const file of Object.keys(a.ids)) console.log(`  ${file.padEnd(24)} A: ${a.ids[file].length}  B: ${b.ids[file].length}`);
  for (const id of Object.keys(a.transcripts)) {
    console.log(`  transcript ${id.padEnd(15)} ${a.transcripts[id] === b.transcripts[id] ? 'byte-identical on both machines' : 'DIFFERS'}`);
  }
  const same = JSON.stringify(a) === JSON.stringify(b);
  console.log(
    same
      ? '\nBoth machines hold the same traces, ledgers, commit links, summaries and transcripts.'
      : '\nThe two machines differ: this is a bug, please report it.',
  );
  process.exitCode = same ? 0 : 1;

  step('Machine B: the attribution machine A recorded, read where it was pulled');
  tracer(homeB, repoB, ['blame', 'src/app.js']);
  tracer(homeB, repoB, ['stats', 'HEAD']);

  step('The hosting side squash-merges a pull request; blame on main still knows the agent');
  // Machine A works on a branch: an agent writes, A commits (the post-commit hook attributes it) and pushes the ledgers.
  const gitAs = (home, cwd, ...args) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        ...baseEnv,
        TRACER_HOME: home,
        GIT_AUTHOR_NAME: 'Demo',
        GIT_AUTHOR_EMAIL: 'demo@example.com',
        GIT_COMMITTER_NAME: 'Demo',
        GIT_COMMITTER_EMAIL: 'demo@example.com',
      },
    }).trim();
  gitAs(homeA, repoA, 'checkout', '-q', '-b', 'greeting');
  const greet = 'export function greet(name) {\n  const trimmed = name.trim();\n  return `Hello, ${trimmed}!`;\n}\n';
  writeFileSync(join(repoA, 'src', 'greet.js'), greet);
  hook(homeA, repoA, 'claude-code', 'PostToolUse', {
    session_id: 'demo-claude-session',
    transcript_path: join(work, 'claude-session.jsonl'),
    cwd: repoA,
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(repoA, 'src', 'greet.js'), content: greet },
  });
  gitAs(homeA, repoA, 'add', 'src/greet.js');
  gitAs(homeA, repoA, 'commit', '-q', '-m', 'Add greet');
  tracer(homeA, repoA, ['push']);
  // The service squashes the request onto main and keeps its head as refs/pull/1/head; it runs no tracer.
  gitAs(homeA, repoA, 'update-ref', 'refs/pull/1/head', 'greeting');
  gitAs(homeA, repoA, 'checkout', '-q', 'main');
  gitAs(homeA, repoA, 'merge', '-q', '--squash', 'greeting');
  gitAs(homeA, repoA, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'Add greet (#1)');
  // Machine B gets the branch's ledgers from the service, then the squash with git pull: its post-merge hook reconciles it.
  tracer(homeB, repoB, ['pull']);
  console.log('  $ git pull');
  gitAs(homeB, repoB, 'pull', '-q', '--no-rebase', 'origin', 'main');
  tracer(homeB, repoB, ['blame', 'src/greet.js']);
  tracer(homeB, repoB, ['show']);
} catch (error) {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  service?.child.kill('SIGTERM');
  if (keep) console.log(`\nKept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
