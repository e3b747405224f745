#!/usr/bin/env node
// The README's first command: the main job of tracer, end to end, on this machine.
// Starts the embedded service, creates a project and a token, records sample agent
// activity on "machine A", pushes it, pulls it on "machine B" (another TRACER_HOME
// and another clone), and shows that both stores now hold the same data.
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
const { withContentId, sha256Hex } = await import(join(root, 'dist', 'core', 'content-id.js'));
const { appendRecords } = await import(join(root, 'dist', 'store', 'jsonl.js'));

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
    env: { ...baseEnv, GIT_AUTHOR_NAME: 'Demo', GIT_AUTHOR_EMAIL: 'demo@example.com', GIT_COMMITTER_NAME: 'Demo', GIT_COMMITTER_EMAIL: 'demo@example.com' },
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

/** Sample activity as the agent hooks would record it: two traces, a ledger that attributes them, a commit link, a summary, two transcripts. */
function recordSampleActivity(projectDir, commit) {
  const ts = new Date().toISOString();
  const conversationId = 'demo-session-1';
  const traces = [
    withContentId({ id: '', ts, agent: 'claude-code', event: 'PostToolUse', tool: 'Edit', conversation_id: conversationId, files: [{ path: 'src/app.js', ranges: [[1, 3]] }] }, 'id'),
    withContentId({ id: '', ts, agent: 'claude-code', event: 'PostToolUse', tool: 'Write', conversation_id: conversationId, files: [{ path: 'README.md', ranges: [[1, 2]] }] }, 'id'),
  ];
  appendRecords(join(projectDir, 'traces.jsonl'), traces);
  appendRecords(join(projectDir, 'ledgers.jsonl'), [withContentId({ sha: '', ts, commit, trace_ids: traces.map((trace) => trace.id) }, 'sha')]);
  appendRecords(join(projectDir, 'commit-links.jsonl'), [withContentId({ id: '', ts, commit, session_ids: [conversationId], trace_ids: traces.map((trace) => trace.id) }, 'id')]);
  appendRecords(join(projectDir, 'session-summaries.jsonl'), [withContentId({ id: '', ts, conversation_url: `claude-code://${conversationId}`, summary: 'Added the app entry point and a README.' }, 'id')]);

  const transcripts = {
    [conversationId]: Buffer.from(`{"role":"user","content":"Add an entry point"}\n{"role":"assistant","content":"Done."}\n`),
    'demo-session-2': Buffer.from(Array.from({ length: 3000 }, (_, i) => `{"turn":${i},"content":"${'x'.repeat(100)}"}\n`).join('')),
  };
  const index = {};
  const rows = [];
  for (const [id, bytes] of Object.entries(transcripts)) {
    const sha = sha256Hex(bytes);
    mkdirSync(join(projectDir, 'conversations', sha.slice(0, 2)), { recursive: true });
    writeFileSync(join(projectDir, 'conversations', sha.slice(0, 2), sha), bytes);
    index[id] = sha;
    rows.push({ conversation_id: id, content_sha256: sha, size: bytes.length, ts });
  }
  writeFileSync(join(projectDir, 'conversations', '_index.json'), `${JSON.stringify(index, null, 2)}\n`);
  appendRecords(join(projectDir, 'conversations.jsonl'), rows);
  return Object.keys(transcripts);
}

function projectDirOf(initOutput) {
  return /data:\s+(.+)$/m.exec(initOutput)[1].trim();
}

function digest(projectDir) {
  const families = ['traces.jsonl', 'ledgers.jsonl', 'commit-links.jsonl', 'session-summaries.jsonl'];
  const ids = {};
  for (const file of families) {
    const path = join(projectDir, file);
    const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
    ids[file] = lines.map((row) => row.id ?? row.sha).sort();
  }
  const indexPath = join(projectDir, 'conversations', '_index.json');
  const index = existsSync(indexPath) ? JSON.parse(readFileSync(indexPath, 'utf8')) : {};
  const transcripts = Object.fromEntries(
    Object.entries(index).map(([id, sha]) => [id, createHash('sha256').update(readFileSync(join(projectDir, 'conversations', sha.slice(0, 2), sha))).digest('hex')]),
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
  const token = tracer(join(work, 'admin-home'), work, ['token', 'create', remoteUrl, '--name', 'demo'], { TRACER_ADMIN_SECRET: adminSecret }).trim();

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
  const conversations = recordSampleActivity(dirA, git(repoA, 'rev-parse', 'HEAD'));
  console.log(`  recorded 2 traces, 1 ledger, 1 commit link, 1 summary and ${conversations.length} transcripts`);
  tracer(homeA, repoA, ['status']);

  step('Machine A: push');
  tracer(homeA, repoA, ['push']);
  tracer(homeA, repoA, ['push']);

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
  console.log(same ? '\nBoth machines hold the same traces, ledgers, commit links, summaries and transcripts.' : '\nThe two machines differ: this is a bug, please report it.');
  process.exitCode = same ? 0 : 1;
} catch (error) {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  service?.child.kill('SIGTERM');
  if (keep) console.log(`\nKept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
