import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { gitIn, ledgerOf, machine, note, rows } from '../capture/ledger-helpers.js';
import { pullRequestRepo, squashOnService } from './reconcile-fixture.js';

test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('a teammate who never had the branch: tracer pull brings the ledgers and the squash on main is attributed', async () => {
  const service = await startService();
  await service.createProject('acme', 'tools');
  const token = await service.createToken({ org: 'acme', project: 'tools' });
  const url = `${service.url}/acme/tools`;
  const tracerIn = (m: { repo: string; home: string }, args: string[]) => runMain(args, { cwd: m.repo, home: m.home });

  const pr = await pullRequestRepo();
  assert.is((await tracerIn(pr.a, ['remote', 'add', 'origin', url, '--token', token])).code, 0);
  const pushed = await tracerIn(pr.a, ['push']);
  assert.is(pushed.code, 0, pushed.stderr);
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  gitIn(pr.origin, ['branch', '-D', 'feature']);

  const repo = join(tempDir('tracer-b-'), 'repo');
  gitIn(tempDir(), ['clone', '-q', pr.origin, repo]);
  const b = machine(repo);
  const before = await tracerIn(b, ['blame', 'src/parse.ts', '--json']);
  assert.equal(
    JSON.parse(before.stdout).lines.map((line: any) => line.type),
    ['unknown', 'unknown', 'unknown', 'unknown', 'unknown'],
  );
  assert.is((await tracerIn(b, ['remote', 'add', 'origin', url, '--token', token])).code, 0);
  const pulled = await tracerIn(b, ['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.not.match(pulled.stderr, /reconcile_failed/);

  const ledger = ledgerOf(b, squash);
  assert.ok(ledger, 'the pull reconciled the squash commit');
  assert.is(note(b.repo, squash), `${JSON.stringify(ledger.record)}\n`);
  const blame = await tracerIn(b, ['blame', 'src/parse.ts', '--json']);
  assert.equal(
    JSON.parse(blame.stdout).lines.map((line: any) => [line.type, line.agent, line.model_id]),
    [
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
      ['human', null, null],
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
    ],
  );

  // Machine A reconciles the same squash after its own git pull: the same row, so the service keeps one.
  gitIn(pr.a.repo, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  assert.is((await tracerIn(pr.a, ['reconcile'])).code, 0);
  assert.equal(ledgerOf(pr.a, squash), ledger);
  assert.is((await tracerIn(pr.a, ['push'])).code, 0);
  assert.is((await tracerIn(b, ['push'])).code, 0);
  assert.is((await tracerIn(b, ['pull'])).code, 0);
  assert.is(rows(b, 'ledgers.jsonl').filter((row) => row.commit === squash).length, 1, 'one row for the squash, whoever reconciled it');
});

test.run();
