import { teamCostSuite } from './team-cost-suite.js';

teamCostSuite('sqlite').run();
