import { suite } from 'uvu';
import { cleanup } from '../helpers/cli.js';
import { stopAllServices } from '../helpers/service.js';
import { teamBrowserCases } from '../viewer/team-browser-cases.js';
import { teamOnService, type Team } from './team-fixture.js';
import { teamViewCases } from './team-view-cases.js';

/**
 * The team view of `tracer serve` (needs `npm run build`) on one backend: a
 * team pushes through the real hooks once, then the HTTP rules
 * (team-view-cases.ts) and the pages in headless Chromium
 * (test/viewer/team-browser-cases.ts) run against it.
 */
export function teamViewSuite(backend: 'sqlite' | 'postgres') {
  const test = suite<{ team: Team }>(`team view (${backend})`, {} as { team: Team });
  test.before(async (context) => {
    context.team = await teamOnService(backend);
  });
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });
  teamViewCases(test);
  teamBrowserCases(test, backend);
  return test;
}
