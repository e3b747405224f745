import { teamViewSuite } from './team-view-suite.js';

teamViewSuite('sqlite').run();
