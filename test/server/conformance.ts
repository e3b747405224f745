import { suite } from 'uvu';
import { stopAllServices } from '../helpers/service.js';
import { cleanup } from '../helpers/cli.js';
import { authCases } from './auth-cases.js';
import { blobCases } from './blob-cases.js';
import { createFixture, type Fixture } from './fixture.js';
import { storageCases } from './storage-cases.js';
import { syncCases } from './sync-cases.js';

/**
 * The conformance suite: every route and error code over real HTTP on
 * 127.0.0.1, the same cases for each backend.
 */
export function conformanceSuite(backend: 'sqlite' | 'postgres') {
  const test = suite<{ fixture: Fixture }>(`service conformance (${backend})`, {} as { fixture: Fixture });
  test.before(async (context) => {
    context.fixture = await createFixture(backend);
  });
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });
  authCases(test);
  syncCases(test);
  blobCases(test);
  storageCases(test);
  return test;
}
