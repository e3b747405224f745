import { onPostgres } from '../helpers/service.js';
import { conformanceSuite } from './conformance.js';

/** The same conformance suite on PostgreSQL, in a fresh schema per run. */
await onPostgres('PostgreSQL conformance tests', () => conformanceSuite('postgres').run());
