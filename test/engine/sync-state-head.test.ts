import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROJECT_STATE_FILES } from '../../src/store/home.js';
import { RemoteSyncState, syncStatePath } from '../../src/engine/sync-state.js';
import { cleanup, tempDir } from '../helpers/cli.js';

/**
 * sync-state.head.json lets a run that needs no manifest skip parsing them, and
 * is ignored the moment it no longer describes sync-state.json as it is.
 */
test.after(cleanup);

const URL = 'http://127.0.0.1:1/acme/web';
const MARK = { offset: 10, line: 1, records: 1, tail: 'eA==' };

/** A project folder whose sync-state.json (and head) a save wrote: 2 trace ids, a cursor and a scan mark. */
async function saved(): Promise<string> {
  const dir = tempDir();
  const state = await RemoteSyncState.load(dir, 'origin', URL);
  await state.loadManifests();
  state.add('trace_ids', 'a');
  state.add('trace_ids', 'b');
  state.setCursor('traces', 'c1');
  state.setScanned('traces', MARK);
  await state.flush(true);
  return dir;
}

const headPath = (dir: string) => join(dir, PROJECT_STATE_FILES.syncStateHead);

test('a save writes the head beside sync-state.json: no ids, their count, and the stamp of the file', async () => {
  const dir = await saved();
  const head = JSON.parse(readFileSync(headPath(dir), 'utf8'));
  assert.equal(head.remotes.origin, { url: URL, cursors: { traces: 'c1' }, scanned: { traces: MARK }, listed: { trace_ids: 2 } });
  assert.equal(Object.keys(head.of).sort(), ['ino', 'mtime_ns', 'size']);
  assert.is(head.of.size, String(readFileSync(syncStatePath(dir)).length));
});

test('with a matching head, load reads no manifest until loadManifests(); marks and cursors come from the head', async () => {
  const dir = await saved();
  const state = await RemoteSyncState.load(dir, 'origin', URL);
  assert.equal(state.scanned('traces', 'trace_ids'), MARK);
  assert.is(state.scanned('traces', 'ledger_shas'), undefined, 'an empty manifest drops the mark, as without the head');
  assert.is(state.cursor('traces'), 'c1');
  assert.throws(() => state.has('trace_ids', 'a'), /before loadManifests/);
  await state.loadManifests();
  assert.ok(state.has('trace_ids', 'a'));
  assert.is(state.count('trace_ids'), 2);
});

test('a head stamped for another file is ignored: an edit by hand, a deleted or replaced sync-state.json', async () => {
  const dir = await saved();
  const file = JSON.parse(readFileSync(syncStatePath(dir), 'utf8'));
  file.remotes.origin.synced.trace_ids = ['a'];
  writeFileSync(syncStatePath(dir), JSON.stringify(file));
  const edited = await RemoteSyncState.load(dir, 'origin', URL);
  assert.is(edited.count('trace_ids'), 1, 'read from sync-state.json, no loadManifests() needed');

  rmSync(syncStatePath(dir));
  assert.ok(existsSync(headPath(dir)));
  const lost = await RemoteSyncState.load(dir, 'origin', URL);
  assert.is(lost.count('trace_ids'), 0, 'losing sync-state.json forces a re-scan, whatever the head says');
  assert.is(lost.scanned('traces', 'trace_ids'), undefined);
});

test('a malformed head is ignored and rewritten by the next save', async () => {
  const dir = await saved();
  writeFileSync(headPath(dir), '{"version": 1, "of": ');
  const state = await RemoteSyncState.load(dir, 'origin', URL);
  assert.is(state.count('trace_ids'), 2);
  state.add('trace_ids', 'c');
  await state.flush(true);
  assert.equal(JSON.parse(readFileSync(headPath(dir), 'utf8')).remotes.origin.listed, { trace_ids: 3 });
});

test('a save from a head-loaded state keeps the manifests it never read', async () => {
  const dir = await saved();
  const state = await RemoteSyncState.load(dir, 'origin', URL);
  state.setCursor('traces', 'c2');
  await state.flush(true);
  const file = JSON.parse(readFileSync(syncStatePath(dir), 'utf8'));
  assert.equal(file.remotes.origin.synced.trace_ids, ['a', 'b']);
  assert.is(file.remotes.origin.cursors.traces, 'c2');
});

test('a head written for another URL under the same remote name is not used', async () => {
  const dir = await saved();
  const state = await RemoteSyncState.load(dir, 'origin', 'http://127.0.0.1:2/acme/web');
  assert.is(state.scanned('traces', 'trace_ids'), undefined);
  await state.loadManifests();
  assert.is(state.count('trace_ids'), 0);
});

test.run();
