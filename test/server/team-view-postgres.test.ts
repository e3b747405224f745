import { test } from 'uvu';
import { postgresAvailable, TEST_POSTGRES_URL } from '../helpers/service.js';
import { teamViewSuite } from './team-view-suite.js';

/** The team view on PostgreSQL, in a fresh schema; skipped loudly without a server unless TRACER_TEST_REQUIRE_POSTGRES=1. */
if (await postgresAvailable()) {
  teamViewSuite('postgres').run();
} else if (process.env.TRACER_TEST_REQUIRE_POSTGRES === '1') {
  test('PostgreSQL is required (TRACER_TEST_REQUIRE_POSTGRES=1)', () => {
    throw new Error(`No PostgreSQL answers at ${TEST_POSTGRES_URL}; start one or set TRACER_TEST_POSTGRES_URL.`);
  });
  test.run();
} else {
  console.log(`\n  SKIPPED: team view tests on PostgreSQL: no PostgreSQL answers at ${TEST_POSTGRES_URL}\n`);
}
