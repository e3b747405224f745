import { onPostgres } from '../helpers/service.js';
import { teamViewSuite } from './team-view-suite.js';

/** The team view on PostgreSQL, in a fresh schema. */
await onPostgres('team view tests on PostgreSQL', () => teamViewSuite('postgres').run());
