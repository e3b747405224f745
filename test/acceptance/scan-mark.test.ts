import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addLedger, addTrace, machine, syncState, type Machine } from '../helpers/sync-fixtures.js';

/**
 * sync-state.json `scanned`: how far each append-only file is wholly synced, so
 * that a push reads on from there. It is only a shortcut: the manifest stays the
 * truth, and anything that does not fit the mark sends the push back to the start.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

let service: ServiceHandle;
let token: string;
test.before(async () => {
  service = await startService();
  await service.createProject('acme', 'scan');
  token = await service.createToken({ org: 'acme', project: 'scan', name: 'scan' });
});

const fresh = () => machine({ remoteUrl: `${service.url}/acme/scan`, token });
const mark = (m: Machine, family = 'traces') => syncState(m)?.remotes?.origin?.scanned?.[family];
const size = (m: Machine, file: string) => statSync(join(m.dir, file)).size;

test('a push marks the end of what it synced; the next push reads on from there and reports the same counts', async () => {
  const m = await fresh();
  const a = addTrace(m);
  const b = addTrace(m);
  addLedger(m, [a.id, b.id]);
  const first = await m.run(['push']);
  assert.is(first.code, 0, first.stderr);
  assert.equal(
    { offset: mark(m).offset, records: mark(m).records, line: mark(m).line },
    { offset: size(m, 'traces.jsonl'), records: 2, line: 2 },
  );
  assert.is(mark(m, 'ledgers').records, 1);

  const c = addTrace(m);
  addLedger(m, [c.id]);
  const second = await m.run(['push']);
  assert.is(second.code, 0, second.stderr);
  assert.match(second.stdout, 'traces: 1 pushed (1 new, 0 already there), 2 already synced');
  assert.is(mark(m).records, 3);

  const status = JSON.parse((await m.run(['status', '--json'])).stdout);
  assert.equal(status.remotes[0].families.traces, { local: 3, unpushed: 0, ready: 0, invalid: 0 });
});

test('a held-back trace ends the mark before it, so it is sent once a ledger attributes it', async () => {
  const m = await fresh();
  const a = addTrace(m);
  addLedger(m, [a.id]);
  const before = size(m, 'traces.jsonl');
  const lonely = addTrace(m);
  const b = addTrace(m);
  addLedger(m, [b.id]);
  const first = await m.run(['push']);
  assert.match(first.stdout, '1 waiting for attribution');
  assert.is(mark(m).offset, before, 'the mark stops at the held trace');
  assert.is(mark(m).records, 1);

  addLedger(m, [lonely.id]);
  const second = await m.run(['push']);
  assert.match(second.stdout, 'traces: 1 pushed (1 new, 0 already there), 2 already synced');
  assert.is(mark(m).offset, size(m, 'traces.jsonl'));
});

test('a file that no longer fits its mark (replaced, truncated) is read from the start; the manifest still decides', async () => {
  const m = await fresh();
  const a = addTrace(m);
  const b = addTrace(m);
  addLedger(m, [a.id, b.id]);
  assert.is((await m.run(['push'])).code, 0);
  const path = join(m.dir, 'traces.jsonl');
  const [lineA, lineB] = readFileSync(path, 'utf8').split('\n');
  // Same length, other bytes: the lines swapped.
  writeFileSync(path, `${lineB}\n${lineA}\n`);
  const swapped = await m.run(['push']);
  assert.match(swapped.stdout, 'traces: nothing to push, 2 already synced');

  writeFileSync(path, `${lineA}\n`);
  const truncated = await m.run(['push']);
  assert.match(truncated.stdout, 'traces: nothing to push, 1 already synced');
  assert.is(mark(m).offset, size(m, 'traces.jsonl'));
});

test('an unreadable line ends the mark and is reported on every push; a dry run never moves it', async () => {
  const m = await fresh();
  const a = addTrace(m);
  addLedger(m, [a.id]);
  const before = size(m, 'traces.jsonl');
  appendFileSync(join(m.dir, 'traces.jsonl'), '{not json\n');
  const b = addTrace(m);
  addLedger(m, [b.id]);
  for (let n = 0; n < 2; n += 1) {
    const pushed = await m.run(['push']);
    assert.is(pushed.code, 0, pushed.stderr);
    assert.match(pushed.stderr, 'unreadable_line');
    assert.is(mark(m).offset, before);
  }

  const other = await fresh();
  const c = addTrace(other);
  addLedger(other, [c.id]);
  assert.is((await other.run(['push', '--dry-run'])).code, 0);
  assert.is(mark(other), undefined);
});

test('a push that exits 0 accounts for every row it read: an invalid row is counted in its last line and logged', async () => {
  const m = await fresh();
  const a = addTrace(m);
  addLedger(m, [a.id]);
  appendFileSync(join(m.dir, 'traces.jsonl'), `${JSON.stringify({ id: 'f'.repeat(64), note: 'no ts' })}\n`);
  const pushed = await m.run(['push', '--full']);
  assert.is(pushed.code, 0, pushed.stderr);
  assert.match(pushed.stdout, 'Pushed 2 items to origin (2 new on the server). 1 invalid, not sent (see push-errors.log).');
  assert.match(readFileSync(join(m.dir, 'push-errors.log'), 'utf8'), '"code":"invalid_local_record"');
});

test('without a manifest the mark is not trusted: after the synced ids are gone, every trace is read and sent again', async () => {
  const m = await fresh();
  const a = addTrace(m);
  addLedger(m, [a.id]);
  assert.is((await m.run(['push'])).code, 0);
  const state = syncState(m);
  state.remotes.origin.synced = {};
  writeFileSync(join(m.dir, 'sync-state.json'), JSON.stringify(state));
  const again = await m.run(['push']);
  assert.match(again.stdout, 'traces: 1 pushed (0 new, 1 already there)');
});

test.run();
