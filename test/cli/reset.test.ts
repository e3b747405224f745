import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, sandbox } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from './expect.js';

test.after(cleanup);

const STATE = ['sync-state.json', 'session-state.json', 'attribution-state.json', 'project-config.json'];
const DATA = ['traces.jsonl', 'ledgers.jsonl', 'commit-links.jsonl', 'session-summaries.jsonl', 'conversations'];

test('reset removes cursors and settings, keeps remotes and data unless --data with a confirmation', async () => {
  const { home, run } = sandbox();
  const init = await run(['init']);
  assertOk(init);
  const dir = join(home, 'projects', /tracer project (\S+)/.exec(init.stdout)![1]!);
  assertOk(await run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web', '--token-env', 'T', '--default']));
  const seed = () => {
    for (const name of STATE) if (!existsSync(join(dir, name))) writeFileSync(join(dir, name), '{}\n');
    for (const name of DATA.filter((name) => name.endsWith('.jsonl')))
      writeFileSync(join(dir, name), '{"id":"x","ts":"2024-01-01T00:00:00Z"}\n');
    mkdirSync(join(dir, 'conversations', 'ab'), { recursive: true });
    writeFileSync(join(dir, 'conversations', 'ab', 'ab12'), 'transcript');
  };
  seed();
  const remotesBefore = readFileSync(join(dir, 'remotes.json'), 'utf8');

  const dry = await run(['reset', '--data', '--dry-run']);
  assertOk(dry);
  assert.equal(dry.stdout.trim().split('\n').sort(), [...STATE, ...DATA].map((name) => `would remove ${join(dir, name)}`).sort());
  assert.equal(readdirSync(dir).sort(), [...STATE, ...DATA, 'remotes.json'].sort(), 'a dry run removes nothing');

  const refused = await run(['reset', '--data']);
  assertOneLineError(refused, 'confirmation_required', 2);
  assert.match(refused.stderr, /--yes/);
  assert.equal(readdirSync(dir).sort(), [...STATE, ...DATA, 'remotes.json'].sort(), 'without --yes nothing is removed, not even cursors');

  const plain = await run(['reset']);
  assertOk(plain);
  assert.equal(plain.stdout.trim().split('\n').sort(), STATE.map((name) => `removed ${join(dir, name)}`).sort());
  assert.equal(readdirSync(dir).sort(), [...DATA, 'remotes.json'].sort(), 'data and remotes survive a plain reset');
  assert.is(readFileSync(join(dir, 'remotes.json'), 'utf8'), remotesBefore);
  assert.is((await run(['reset'])).stdout, 'Nothing to remove.\n');

  seed();
  const full = await run(['reset', '--data', '--yes']);
  assertOk(full);
  assert.equal(full.stdout.trim().split('\n').sort(), [...STATE, ...DATA].map((name) => `removed ${join(dir, name)}`).sort());
  assert.equal(readdirSync(dir), ['remotes.json']);
});

test('reset --data leaves the files of a switched-off family alone', async () => {
  const { home, run } = sandbox();
  const init = await run(['init']);
  const dir = join(home, 'projects', /tracer project (\S+)/.exec(init.stdout)![1]!);
  writeFileSync(join(dir, 'traces.jsonl'), '{}\n');
  writeFileSync(join(dir, 'session-summaries.jsonl'), '{}\n');
  writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: ['!summaries'] }));
  const result = await run(['reset', '--data', '-y']);
  assertOk(result);
  assert.is(result.stdout, `removed ${join(dir, 'traces.jsonl')}\n`);
  assert.ok(existsSync(join(dir, 'session-summaries.jsonl')));
});

/** Runs tracer on a pseudo-terminal (util-linux `script`), so the y/N prompt is really shown and answered. */
function runOnTerminal(args: string[], cwd: string, home: string, answer: string) {
  const command = ['node', BIN, ...args].map((word) => `'${word}'`).join(' ');
  return spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd,
    input: answer,
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: home, NO_COLOR: '1' },
  });
}

const hasScript = spawnSync('script', ['--version']).status === 0;

test('reset --data on a terminal asks y/N and only y removes anything', async () => {
  if (!hasScript) return console.warn('skipped: util-linux script(1) is not installed');
  const { home, repo, run } = sandbox();
  const init = await run(['init']);
  const dir = join(home, 'projects', /tracer project (\S+)/.exec(init.stdout)![1]!);
  writeFileSync(join(dir, 'traces.jsonl'), '{}\n');
  writeFileSync(join(dir, 'sync-state.json'), '{}\n');

  const declined = runOnTerminal(['reset', '--data'], repo, home, 'n\n');
  assert.is(declined.status, 1, declined.stdout);
  assert.match(declined.stdout, /\[y\/N\]/);
  assert.match(declined.stdout, /Nothing removed\./);
  assert.equal(readdirSync(dir).sort(), ['sync-state.json', 'traces.jsonl']);

  const accepted = runOnTerminal(['reset', '--data'], repo, home, 'y\n');
  assert.is(accepted.status, 0, accepted.stdout);
  assert.ok(accepted.stdout.includes(`removed ${join(dir, 'traces.jsonl')}`));
  assert.equal(readdirSync(dir), []);
});

test.run();
