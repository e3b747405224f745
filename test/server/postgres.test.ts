import { test } from 'uvu';
import { postgresAvailable, TEST_POSTGRES_URL } from '../helpers/service.js';
import { conformanceSuite } from './conformance.js';

/**
 * The same conformance suite on PostgreSQL, in a fresh schema per run. Without a
 * server it is skipped, loudly, unless TRACER_TEST_REQUIRE_POSTGRES=1 (.ci/run).
 */
if (await postgresAvailable()) {
  conformanceSuite('postgres').run();
} else if (process.env.TRACER_TEST_REQUIRE_POSTGRES === '1') {
  test('PostgreSQL is required (TRACER_TEST_REQUIRE_POSTGRES=1)', () => {
    throw new Error(`No PostgreSQL answers at ${TEST_POSTGRES_URL}; start one or set TRACER_TEST_POSTGRES_URL.`);
  });
  test.run();
} else {
  console.log(
    `\n  SKIPPED: PostgreSQL conformance tests: no PostgreSQL answers at ${TEST_POSTGRES_URL} (set TRACER_TEST_POSTGRES_URL, or TRACER_TEST_REQUIRE_POSTGRES=1 to fail instead)\n`,
  );
}
