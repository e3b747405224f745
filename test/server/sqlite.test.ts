import { conformanceSuite } from './conformance.js';

conformanceSuite('sqlite').run();
