// The hook's spool (bin/tracer-hook.sh, src/capture/spool/): an installed hook
// command saves the payload and returns without waiting for node; the event
// reaches traces.jsonl exactly once and in order, whoever folds it and however
// often the fold is killed, and every command that reads traces sees it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, cleanEnv, cleanup, runMain, sandbox, tempDir } from '../helpers/cli.js';
import { spoolFolded } from '../helpers/spool.js';
import { payload, projectDir, readJsonl } from './hook-fixtures.js';

const HOOK_SCRIPT = fileURLToPath(new URL('../../bin/tracer-hook.sh', import.meta.url));

test.after.each(cleanup);

interface Box {
  home: string;
  repo: string;
}

/** A project with claude-code's hooks installed, as `tracer init` leaves it. */
async function initialized(): Promise<Box & ReturnType<typeof sandbox>> {
  const box = sandbox();
  const result = await box.run(['init', '--agents', 'claude-code']);
  assert.is(result.code, 0, result.stderr);
  return box;
}

function installedCommand(repo: string, event: string): string {
  const settings = JSON.parse(readFileSync(join(repo, '.claude/settings.json'), 'utf8'));
  return settings.hooks[event][0].hooks[0].command;
}

/** Runs the hook script as the installed command does, with `node` standing for the node it starts. */
function spoolWith(node: string, box: Box, event: string, input: string, env: Record<string, string> = {}) {
  const result = spawnSync('/bin/sh', [HOOK_SCRIPT, node, BIN, 'hook', 'claude-code', event], {
    cwd: box.repo,
    input,
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: box.home, ...env },
  });
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stdout, '', 'a hook prints nothing');
}

/** A `node` that starts nothing: entries stay in the spool until a command folds them. */
const NO_FOLD = '/bin/true';

function prompt(box: Box, session: string): string {
  return JSON.stringify({ ...JSON.parse(payload('claude-code', 'UserPromptSubmit', { repo: box.repo })), session_id: session });
}

function spooled(home: string): string[] {
  try {
    return readdirSync(join(home, 'spool')).filter((name) => name.endsWith('.event'));
  } catch {
    return [];
  }
}

function traces(home: string): any[] {
  const path = join(projectDir(home), 'traces.jsonl');
  return existsSync(path) ? readJsonl(path) : [];
}

/** Gives the spool's entries distinct modification times, a second apart in the order given. */
function ageInOrder(home: string, names: readonly string[]): void {
  const start = Date.now() / 1000 - names.length - 10;
  names.forEach((name, index) => utimesSync(join(home, 'spool', name), start + index, start + index));
}

test('the installed command returns while the node it started is still running, and the event lands once', async () => {
  const box = await initialized();
  const command = installedCommand(box.repo, 'UserPromptSubmit');
  assert.match(command, /^\/bin\/sh \S*bin\/tracer-hook\.sh \S+ \S*bin\/tracer\.js hook claude-code UserPromptSubmit$/);
  // A node that waits for the test to let it go, then runs the real one.
  const dir = tempDir('slow-node-');
  const gate = join(dir, 'gate');
  const started = join(dir, 'started');
  const slowNode = join(dir, 'node');
  writeFileSync(slowNode, `#!/bin/sh\n: > '${started}'\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\nexec '${process.execPath}' "$@"\n`, {
    mode: 0o755,
  });
  spoolWith(slowNode, box, 'UserPromptSubmit', prompt(box, 'gated'));
  assert.equal(traces(box.home), [], 'the hook returned before anything was folded');
  assert.is(spooled(box.home).length, 1, 'the event waits in the spool');
  while (!existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 20));
  writeFileSync(gate, '');
  await spoolFolded(box.home);
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    ['gated'],
  );
  assert.equal(spooled(box.home), []);
});

test('every command folds the spool first: events reach traces.jsonl in the order they were spooled, once', async () => {
  const box = await initialized();
  const sessions = Array.from({ length: 12 }, (_, index) => `s-${index}`);
  for (const session of sessions) spoolWith(NO_FOLD, box, 'UserPromptSubmit', prompt(box, session));
  const names = spooled(box.home);
  assert.is(names.length, sessions.length);
  // Spooled within the same second by the same shell: the entries' times, not their names, give the order.
  const byName = new Map(
    names.map((name) => [name, JSON.parse(readFileSync(join(box.home, 'spool', name), 'utf8').split('\n\n')[1]!).session_id]),
  );
  const reversed = [...names].sort().reverse();
  ageInOrder(box.home, reversed);
  const status = await box.run(['status']);
  assert.is(status.code, 0, status.stderr);
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    reversed.map((name) => byName.get(name)),
  );
  const rows = traces(box.home);
  const entryTimes = reversed.map((name, index) => new Date((Date.now() / 1000 - names.length - 10 + index) * 1000));
  rows.forEach((row, index) => assert.ok(Math.abs(Date.parse(row.ts) - entryTimes[index]!.getTime()) < 5_000, 'ts is when the hook ran'));
  await box.run(['status']);
  assert.is(traces(box.home).length, sessions.length, 'a second fold records nothing again');
  assert.equal(spooled(box.home), []);
});

test('a commit sees the edit the hook spooled: the ledger names the agent', async () => {
  const box = await initialized();
  mkdirSync(join(box.repo, 'src'));
  const write = JSON.parse(payload('claude-code', 'PostToolUse.Write', { repo: box.repo }));
  writeFileSync(write.tool_input.file_path, write.tool_input.content);
  spoolWith(NO_FOLD, box, 'PostToolUse', JSON.stringify(write));
  assert.is(spooled(box.home).length, 1);
  const env = {
    ...cleanEnv(),
    TRACER_HOME: box.home,
    GIT_AUTHOR_NAME: 'T',
    GIT_AUTHOR_EMAIL: 't@e',
    GIT_COMMITTER_NAME: 'T',
    GIT_COMMITTER_EMAIL: 't@e',
  };
  for (const args of [
    ['add', '-A'],
    ['commit', '-q', '-m', 'greet'],
  ]) {
    const result = spawnSync('git', args, { cwd: box.repo, env, encoding: 'utf8' });
    assert.is(result.status, 0, result.stderr);
  }
  // The post-commit hook spooled the commit after the edit; the next command folds both, the edit first.
  const show = await box.run(['show']);
  assert.is(show.code, 0, show.stderr);
  assert.not.match(show.stderr, /spool_not_folded/);
  assert.equal(spooled(box.home), [], 'the first command after the commit folded the edit, then the commit');
  const ledgers = readJsonl(join(projectDir(box.home), 'ledgers.jsonl'));
  assert.is(ledgers.length, 1);
  assert.match(JSON.stringify(ledgers[0]), /claude-code/);
  assert.match(JSON.stringify(ledgers[0]), /"type":"ai"/);
});

test('a fold killed at any moment, then run again until done, records every event exactly once and in order', async () => {
  const box = await initialized();
  const sessions = Array.from({ length: 16 }, (_, index) => `k-${index}`);
  for (const session of sessions) spoolWith(NO_FOLD, box, 'UserPromptSubmit', prompt(box, session));
  const names = spooled(box.home);
  const order = [...names].sort();
  ageInOrder(box.home, order);
  const sessionOf = (name: string) => JSON.parse(readFileSync(join(box.home, 'spool', name), 'utf8').split('\n\n')[1]!).session_id;
  const expected = order.map(sessionOf);
  let kills = 0;
  for (let round = 0; spooled(box.home).length > 0 && round < 80; round += 1) {
    const child = spawn(process.execPath, [BIN, 'hook', '--fold'], {
      env: { ...cleanEnv(), TRACER_HOME: box.home },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Kill it somewhere between its start and its end: early rounds die before folding anything, later ones mid-way.
    await new Promise((resolve) => setTimeout(resolve, 60 + ((round * 97) % 600)));
    if (child.kill('SIGKILL')) kills += 1;
    await exited;
  }
  // Whatever the last kill left (a stale lock, a journal, a torn entry), a command finishes it.
  const status = await runMain(['status'], { cwd: box.repo, home: box.home });
  assert.is(status.code, 0, status.stderr);
  assert.ok(kills > 0, 'some folds were killed');
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    expected,
  );
  assert.equal(
    readdirSync(join(box.home, 'spool')).filter((name) => !name.startsWith('.fold.lock')),
    [],
  );
});

test('an interrupted fold: a journal whose row is already appended is not appended again; an orphan journal and a torn entry go', async () => {
  const box = await initialized();
  spoolWith(NO_FOLD, box, 'UserPromptSubmit', prompt(box, 'first'));
  const spool = join(box.home, 'spool');
  await box.run(['status']);
  const [row] = traces(box.home);
  // As if killed after the append and before the entry was removed: the entry and its journal are back.
  spoolWith(NO_FOLD, box, 'UserPromptSubmit', prompt(box, 'first'));
  const [again] = spooled(box.home);
  writeFileSync(join(spool, `${again}.row`), JSON.stringify(row));
  writeFileSync(join(spool, '123-1.event.row'), JSON.stringify(row));
  writeFileSync(join(spool, '.123-2'), 'tracer-spool 1\nclaude-code\nStop\n');
  utimesSync(join(spool, '.123-2'), 1, 1);
  await box.run(['status']);
  assert.equal(
    traces(box.home).map((trace) => trace.id),
    [row.id],
    'the journal kept the row from being written twice',
  );
  assert.equal(
    readdirSync(spool).filter((name) => !name.startsWith('.fold.lock')),
    [],
  );
});

test('a hook run directly comes after what the installed hooks spooled before it, never ahead of them', async () => {
  const box = await initialized();
  // Spooled and not folded yet (no node started), then the same session's next event recorded at once.
  for (const session of ['s-1', 's-2', 's-3']) spoolWith(NO_FOLD, box, 'UserPromptSubmit', prompt(box, session));
  ageInOrder(box.home, spooled(box.home).sort());
  spoolWith(process.execPath, box, 'UserPromptSubmit', prompt(box, 's-4'), { TRACER_HOOK_SYNC: '1' });
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    ['s-1', 's-2', 's-3', 's-4'],
  );
  assert.equal(spooled(box.home), []);
  // By hand, as the README shows: the same.
  spoolWith(NO_FOLD, box, 'UserPromptSubmit', prompt(box, 's-5'));
  const direct = await box.run(['hook', 'claude-code', 'UserPromptSubmit'], { input: prompt(box, 's-6') });
  assert.is(direct.code, 0, direct.stderr);
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    ['s-1', 's-2', 's-3', 's-4', 's-5', 's-6'],
  );
});

test('an entry that is not one is removed and logged; TRACER_HOOK_SYNC=1 records at once, without the spool', async () => {
  const box = await initialized();
  mkdirSync(join(box.home, 'spool'), { recursive: true });
  writeFileSync(join(box.home, 'spool', '1-1.event'), 'not an entry\n');
  spoolWith(process.execPath, box, 'UserPromptSubmit', prompt(box, 'sync'), { TRACER_HOOK_SYNC: '1' });
  assert.equal(
    traces(box.home).map((row) => row.conversation_id),
    ['sync'],
    'recorded before the hook returned',
  );
  await box.run(['status']);
  assert.equal(spooled(box.home), []);
  const log = readFileSync(join(box.home, 'hook-errors.log'), 'utf8');
  assert.match(log, /"code":"invalid_spool_entry"/);
});

test.run();
