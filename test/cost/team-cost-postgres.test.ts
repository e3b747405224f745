import { onPostgres } from '../helpers/service.js';
import { teamCostSuite } from './team-cost-suite.js';

/** The team view's cost pages on PostgreSQL, in a fresh schema. */
await onPostgres('team cost tests on PostgreSQL', () => teamCostSuite('postgres').run());
