import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { assertProblem, clientFor } from './http.js';

const NOTES_PLUGIN = fileURLToPath(new URL('./fixtures/notes-family.ts', import.meta.url));

test.after(async () => {
  await stopAllServices();
  cleanup();
});

test('a custom family plugin adds its route, its required members and its checks to the service', async () => {
  const plain = await startService();
  await plain.createProject('acme', 'web');
  const plainClient = clientFor(plain, await plain.createToken({ org: 'acme', project: 'web' }), 'acme', 'web');
  assertProblem(await plainClient.pull('notes'), 404, 'not_found');

  const service = await startService({ plugins: [NOTES_PLUGIN] });
  await service.createProject('acme', 'web');
  const client = clientFor(service, await service.createToken({ org: 'acme', project: 'web' }), 'acme', 'web');
  const note = withContentId({ ts: '2024-05-01T00:00:00Z', author: 'ada', text: 'kept verbatim' }, 'id');
  assert.equal((await client.push('notes', [note, note])).json, { received: 2, inserted: 1, duplicates: 1 });
  assert.equal(await client.pullAll('notes'), [note]);
  const missing = await client.push('notes', [withContentId({ ts: '2024-05-01T00:00:00Z' }, 'id')]);
  assertProblem(missing, 422, 'invalid_item');
  assert.equal(
    missing.json.errors.map((error: { field: string }) => error.field),
    ['author'],
  );
});

test.run();
