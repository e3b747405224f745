import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import {
  addConversation,
  addLedger,
  addSummary,
  addTrace,
  machine,
  readConversation,
  readRows,
  storeSnapshot,
  syncState,
  transcript,
} from '../helpers/sync-fixtures.js';

/**
 * Old servers (spec §9): the service started with `--disable-route` for each
 * case; with the compatibility plugin switched off, the same server is an error.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

async function oldServer(disabled: string) {
  const service = await startService({ disableRoutes: [disabled] });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web' });
  const url = `${service.url}/acme/web`;
  return { service, url, token, machine: () => machine({ remoteUrl: url, token }) };
}

const switchOff = (m: { run: (args: string[]) => Promise<{ code: number; stderr: string }> }, plugin: string) =>
  m.run(['config', 'set', 'plugins', `!${plugin}`]);

test('no summaries route: push and pull skip summaries silently and exit 0', async () => {
  const server = await oldServer('summaries');
  const a = await server.machine();
  const trace = addTrace(a);
  addLedger(a, [trace.id]);
  const summary = addSummary(a);
  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);
  assert.is(pushed.stderr, '');
  assert.match(pushed.stdout, 'traces: 1 pushed');
  assert.not.ok(syncState(a).remotes.origin.synced.summary_ids?.includes(summary.id), 'the summary stays unsynced for a newer server');
  const b = await server.machine();
  const pulled = await b.run(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.is(pulled.stderr, '');
  assert.is(readRows(join(b.dir, 'traces.jsonl')).length, 1);

  assert.is((await switchOff(a, 'summaries-missing')).code, 0);
  const strict = await a.run(['push']);
  assert.is(strict.code, 1);
  assert.match(strict.stderr, '(route_unsupported)');
});

test('no blob route: large transcripts go inline, the fallback is logged, exit 0; the other machine gets the same bytes', async () => {
  const server = await oldServer('blobs');
  const a = await server.machine();
  const bytes = transcript(300 * 1024, 'inline-fallback');
  const { sha } = addConversation(a, 'conv-large', bytes);
  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);
  assert.match(pushed.stdout, '1 sent inline (no blob route)');
  assert.match(pushed.stderr, 'blob_fallback_inline');
  const log = readFileSync(join(a.dir, 'push-errors.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.is(log.length, 1);
  assert.is(log[0].code, 'blob_fallback_inline');
  assert.is(log[0].remote, 'origin');
  assert.is(log[0].item, sha);
  assert.not.match(JSON.stringify(log), server.token);
  const b = await server.machine();
  const pulled = await b.run(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.ok(readConversation(b, 'conv-large').equals(bytes));
  assert.equal(storeSnapshot(b).conversations, storeSnapshot(a).conversations);

  addConversation(a, 'conv-large-2', transcript(400 * 1024, 'strict'));
  assert.is((await switchOff(a, 'blobs-missing')).code, 0);
  const strict = await a.run(['push']);
  assert.is(strict.code, 1);
  assert.match(strict.stderr, '(blobs_unsupported)');
});

test('no whoami route: warning whoami_unsupported, the push goes on', async () => {
  const server = await oldServer('whoami');
  const a = await server.machine();
  const trace = addTrace(a);
  addLedger(a, [trace.id]);
  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);
  assert.match(pushed.stderr, 'warning');
  assert.match(pushed.stderr, '(whoami_unsupported)');
  assert.match(pushed.stdout, 'ledgers: 1 pushed');
  const doctor = await a.run(['doctor']);
  assert.is(doctor.code, 0, doctor.stdout);
  assert.match(doctor.stdout, 'whoami: not checked: whoami_unsupported');

  assert.is((await switchOff(a, 'whoami-unsupported')).code, 0);
  const strict = await a.run(['push']);
  assert.is(strict.code, 6);
  assert.match(strict.stderr, '(whoami_unsupported)');
});

test.run();
