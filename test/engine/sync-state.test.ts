import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RemoteSyncState, syncStatePath } from '../../src/engine/sync-state.js';
import { cleanup, tempDir } from '../helpers/cli.js';

/** Saves of sync-state.json: what one run holds in memory never erases what another run saved meanwhile. */
test.after(cleanup);

const URL = 'http://127.0.0.1:1/acme/web';
const open = async (dir: string) => {
  const state = await RemoteSyncState.load(dir, 'origin', URL);
  await state.loadManifests();
  return state;
};
const saved = (dir: string) => JSON.parse(readFileSync(syncStatePath(dir), 'utf8')).remotes.origin.synced.trace_ids as string[];

test('two runs on one project: each save keeps the ids the other saved since it read the file', async () => {
  const dir = tempDir();
  const first = await open(dir);
  first.add('trace_ids', 'a');
  await first.flush(true);
  const one = await open(dir);
  const two = await open(dir);
  one.add('trace_ids', 'b');
  await one.flush(true);
  two.add('trace_ids', 'c');
  await two.flush(true);
  assert.equal(saved(dir).sort(), ['a', 'b', 'c']);
  // And again the other way round, now that each has saved once.
  one.add('trace_ids', 'd');
  two.add('trace_ids', 'e');
  await two.flush(true);
  await one.flush(true);
  assert.equal(saved(dir).sort(), ['a', 'b', 'c', 'd', 'e']);
});

test('a run alone saves what it holds: an id it dropped stays dropped', async () => {
  const dir = tempDir();
  const state = await open(dir);
  state.add('trace_ids', 'a');
  state.add('trace_ids', 'b');
  await state.flush(true);
  state.delete('trace_ids', 'b');
  await state.flush(true);
  assert.equal(saved(dir), ['a']);
});

test.run();
