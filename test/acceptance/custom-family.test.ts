import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addLedger, addTrace, appendRows, machine, readRows, syncState } from '../helpers/sync-fixtures.js';

/**
 * examples/plugins/review-notes.ts, compiled as its README says: one module enables
 * a family on the service and on two machines. (The repository's type check covers
 * its types; here it is only transpiled.)
 */
const PLUGIN = compiledExample();

function compiledExample(): string {
  const source = readFileSync(fileURLToPath(new URL('../../examples/plugins/review-notes.ts', import.meta.url)), 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const path = join(tempDir('tracer-example-plugin-'), 'review-notes.js');
  writeFileSync(path, outputText);
  return path;
}

test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('a custom family is pushed and pulled through the real service like a built-in one', async () => {
  const service = await startService({ plugins: [PLUGIN] });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web' });
  const url = `${service.url}/acme/web`;
  const a = await machine({ remoteUrl: url, token });
  const b = await machine({ cloneOf: a.repo, remoteUrl: url, token });
  for (const m of [a, b]) assert.is((await m.run(['config', 'set', 'plugins', PLUGIN])).code, 0);

  const notes = [1, 2, 3].map((n) =>
    withContentId({ ts: `2024-05-0${n}T10:00:00.000Z`, commit: 'c'.repeat(40), note: `note ${n} — ünïcode` }, 'id'),
  );
  appendRows(join(a.dir, 'review-notes.jsonl'), notes);
  const trace = addTrace(a);
  addLedger(a, [trace.id]);

  const status = JSON.parse((await a.run(['status', '--json'])).stdout);
  assert.is(status.remotes[0].families['review-notes'].unpushed, 3);

  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);
  assert.match(pushed.stdout, 'review-notes: 3 pushed (3 new');
  assert.is(syncState(a).remotes.origin.synced.review_note_ids.length, 3);

  const pulled = await b.run(['pull']);
  assert.is(pulled.code, 0, pulled.stderr);
  assert.match(pulled.stdout, 'review-notes: 3 received, 3 added');
  assert.equal(readRows(join(b.dir, 'review-notes.jsonl')), notes);

  const only = JSON.parse((await a.run(['push', '--only', 'review-notes', '--json'])).stdout);
  assert.is(only.push.totals.sent, 0, 'nothing new');
});

test('a service without the family answers 404 for its route: push fails, naming the route', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const a = await machine({ remoteUrl: `${service.url}/acme/web`, token: await service.createToken({ org: 'acme', project: 'web' }) });
  await a.run(['config', 'set', 'plugins', PLUGIN]);
  appendRows(join(a.dir, 'review-notes.jsonl'), [
    withContentId({ ts: '2024-05-01T10:00:00.000Z', commit: 'c'.repeat(40), note: 'x' }, 'id'),
  ]);
  const pushed = await a.run(['push']);
  assert.is(pushed.code, 1);
  assert.match(pushed.stderr, '/api/v1/sync/review-notes');
  assert.match(pushed.stderr, '(route_unsupported)');
});

test.run();
