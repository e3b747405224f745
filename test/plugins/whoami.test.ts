import nock from 'nock';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode } from '../../src/core/errors.js';
import whoami from '../../src/plugins/whoami.js';
import whoamiUnsupported from '../../src/plugins/whoami-unsupported.js';
import { cleanup } from '../helpers/cli.js';
import { BASE, kernelWith, session } from './harness.js';
import { rejectionOf } from '../helpers/errors.js';

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => {
  nock.enableNetConnect();
  cleanup();
});

const answer = (body: unknown, status = 200) =>
  nock(BASE)
    .get('/api/v1/auth/whoami')
    .reply(status, body as any);

test('a matching project token, or an org token, passes and is kept in the session', async () => {
  const { kernel, project } = await kernelWith(whoami, whoamiUnsupported);
  for (const body of [
    { org_slug: 'acme', project_slug: 'web', scope: 'project', token_name: 'ci' },
    { org_slug: 'acme', project_slug: null, scope: 'org' },
  ]) {
    answer(body);
    const { session: s, close } = await session(kernel, project);
    await kernel.hooks.preflight.promise(s);
    assert.is((s.state.get('whoami') as { org_slug: string }).org_slug, 'acme');
    close();
  }
});

test('another org: org_slug_mismatch naming both slugs, exit 6', async () => {
  const { kernel, project } = await kernelWith(whoami, whoamiUnsupported);
  answer({ org_slug: 'globex', project_slug: null, scope: 'org' });
  const { session: s, close } = await session(kernel, project);
  const error = await rejectionOf(kernel.hooks.preflight.promise(s));
  close();
  assert.is(error.code, 'org_slug_mismatch');
  assert.is(error.exitCode, ExitCode.scope);
  assert.match(error.message, '"globex"');
  assert.match(error.message, '"acme"');
  assert.is(error.plugin, 'whoami');
});

test('a project token for another project: project_scope_mismatch naming both, exit 6', async () => {
  const { kernel, project } = await kernelWith(whoami, whoamiUnsupported);
  answer({ org_slug: 'acme', project_slug: 'api', scope: 'project' });
  const { session: s, close } = await session(kernel, project);
  const error = await rejectionOf(kernel.hooks.preflight.promise(s));
  close();
  assert.is(error.code, 'project_scope_mismatch');
  assert.match(error.message, 'acme/api');
  assert.match(error.message, 'acme/web');
});

test('404, 405 and 501: whoami_unsupported warning and the run goes on', async () => {
  const { kernel, project } = await kernelWith(whoami, whoamiUnsupported);
  for (const status of [404, 405, 501]) {
    answer({ code: 'not_found' }, status);
    const { session: s, warnings, close } = await session(kernel, project);
    await kernel.hooks.preflight.promise(s);
    close();
    assert.equal(
      warnings.map((warning) => warning.code),
      ['whoami_unsupported'],
      String(status),
    );
  }
});

test('without whoami-unsupported the same server is an error', async () => {
  const { kernel, project } = await kernelWith(whoami);
  answer({ code: 'not_found' }, 404);
  const { session: s, close } = await session(kernel, project);
  const error = await rejectionOf(kernel.hooks.preflight.promise(s));
  close();
  assert.is(error.code, 'whoami_unsupported');
  assert.is(error.exitCode, ExitCode.scope);
});

test('404 project_not_found is not mistaken for a missing route', async () => {
  const { kernel, project } = await kernelWith(whoami, whoamiUnsupported);
  answer({ code: 'project_not_found', detail: 'no such project' }, 404);
  const { session: s, close } = await session(kernel, project);
  const error = await rejectionOf(kernel.hooks.preflight.promise(s));
  close();
  assert.is(error.code, 'project_not_found');
});

test('an answer without org_slug and scope is malformed', async () => {
  const { kernel, project } = await kernelWith(whoami, whoamiUnsupported);
  answer({ hello: 'world' });
  const { session: s, close } = await session(kernel, project);
  const error = await rejectionOf(kernel.hooks.preflight.promise(s));
  close();
  assert.is(error.code, 'malformed_response');
});

test.run();
