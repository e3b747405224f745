import http from 'node:http';
import nock from 'nock';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { sessionFor } from '../../src/engine/session.js';
import { runPull } from '../../src/engine/pull.js';
import traces from '../../src/plugins/traces.js';
import { cleanup } from '../helpers/cli.js';
import { spawnService, stopAllServices } from '../helpers/service.js';
import { kernelWith, remote } from '../plugins/harness.js';

/**
 * Pull overlaps the service's work on page n+1 with its own on page n. That
 * holds only if the request for n+1 is on the wire before page n is checked: a
 * long run of promise continuations keeps node:http from writing it (see
 * letRequestsOut). The service runs as a child process, so its clock is not ours.
 */
// Other test files load nock, whose interceptor hands requests on a few ticks later: measure node:http itself.
let nockWasActive = false;
test.before(() => {
  nockWasActive = nock.isActive();
  if (nockWasActive) nock.restore();
});
test.after(async () => {
  if (nockWasActive) nock.activate();
  await stopAllServices();
  cleanup();
});

test('pull has written its request for page 3 before it writes page 2', async () => {
  const service = await spawnService();
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web', name: 'prefetch' });
  const items = Array.from({ length: 1200 }, (_, n) => withContentId({ ts: '2024-05-01T00:00:00.000Z', n }, 'id'));
  for (const batch of [items.slice(0, 500), items.slice(500, 1000), items.slice(1000)]) {
    const answer = await fetch(`${service.url}/api/v1/sync/traces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-tracer-org': 'acme', 'x-tracer-project': 'web', 'content-type': 'application/json' },
      body: JSON.stringify({ items: batch }),
    });
    assert.is(answer.status, 200, await answer.text());
  }

  const { kernel, project } = await kernelWith(traces);
  const events: string[] = [];
  let asked = 0;
  kernel.hooks.progress.tap('watch', (event) => {
    if (event.type === 'step-progress' && event.step === 'traces') events.push(`page written (${event.done} rows)`);
  });
  const request = http.request;
  http.request = function (this: unknown, ...args: Parameters<typeof http.request>) {
    const req = request.apply(this, args);
    // Page 3: by then a kept-alive connection is free, so nothing waits on a connect.
    if (String(args[0]).includes('/sync/traces?') && String(args[0]).includes('after='))
      req.on('finish', () => events.push(`page ${(asked += 1) + 1} asked`));
    return req;
  } as typeof http.request;
  try {
    const { session, close } = await sessionFor(kernel, project, remote(`${service.url}/acme/web`, token), { direction: 'pull' });
    const report = await runPull(kernel, session);
    close();
    assert.is(report.families[0]!.inserted, 1200);
  } finally {
    http.request = request;
  }
  const order = (event: string) => events.indexOf(event);
  assert.ok(order('page 3 asked') >= 0 && order('page 3 asked') < order('page written (1000 rows)'), events.join(', '));
});

test.run();
