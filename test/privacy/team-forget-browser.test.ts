import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { clientFor, conversation, summary, trace } from '../server/http.js';
import { launchBrowser, type Headless } from '../viewer/browser.js';
import { tokenWithRole } from './support.js';

/**
 * Issue 31, item 5, in headless Chromium: an admin forgets a conversation from
 * its page (a link, a confirmation, a POST from this site); the page then says
 * it was forgotten, and by retention when retention took it; a push token's
 * page says it shows no transcript.
 */
let headless: Headless | undefined;
const pageErrors: string[] = [];
test.after(async () => {
  await headless?.close();
  await stopAllServices();
  cleanup();
});

async function signedIn(service: ServiceHandle, token: string): Promise<Page> {
  const context = await headless!.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${service.url}/ui/sign-in`);
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForURL(`${service.url}/ui/`), page.click('button[type=submit]')]);
  return page;
}

test('forget from the session page, retention said on the page, no transcript for a push token', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const admin = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
  const pusher = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ci', role: 'push' });
  const client = clientFor(service, admin, 'acme', 'web');
  for (const [id, ts] of [
    ['conv-forget', new Date().toISOString()],
    ['conv-expire', '2024-01-01T00:00:00.000Z'],
  ] as const) {
    assert.is((await client.push('traces', [trace({ conversation_id: id, agent: 'claude-code', event: 'PostToolUse', ts })])).status, 200);
    const bytes = Buffer.from(`{"type":"user","message":{"role":"user","content":"secret of ${id}"}}\n`);
    assert.is((await client.push('conversations', [conversation(bytes, true, { conversation_id: id, ts })])).status, 200);
    assert.is((await client.push('summaries', [summary({ conversation_id: id, summary: `summary of ${id}`, ts })])).status, 200);
  }
  headless = await launchBrowser();

  const asPush = await signedIn(service, pusher);
  await asPush.goto(`${service.url}/ui/p/acme/web/sessions/conv-forget`);
  await asPush.locator('#transcript-hidden').waitFor();
  assert.is(await asPush.locator('#forget-link').count(), 0, 'no forget action for a push token');
  assert.not.match(await asPush.content(), /summary of conv-forget/);

  const page = await signedIn(service, admin);
  await page.goto(`${service.url}/ui/p/acme/web/sessions/conv-forget`);
  await page.locator('#forget-link').click();
  await page.waitForURL(`${service.url}/ui/p/acme/web/sessions/conv-forget/forget`);
  assert.match((await page.textContent('h1')) ?? '', /Forget conversation conv-forget\?/);
  await Promise.all([page.waitForURL(`${service.url}/ui/p/acme/web/sessions/conv-forget`), page.click('button[type=submit].danger')]);
  const note = page.locator('#forgotten');
  await note.waitFor();
  assert.match((await note.textContent()) ?? '', /Transcript forgotten on .* by ada\./);
  assert.not.match(await page.content(), /summary of conv-forget/);

  const policy = await fetch(`${service.url}/api/v1/retention`, {
    method: 'PUT',
    headers: { ...client.headers(), 'content-type': 'application/json' },
    body: JSON.stringify({ retain: { conversations: '90d', summaries: '90d' } }),
  });
  assert.is(policy.status, 200);
  assert.is((await client.post('/api/v1/retention/run', '{}', 'application/json')).status, 200);
  await page.goto(`${service.url}/ui/p/acme/web/sessions/conv-expire`);
  await page.locator('#forgotten').waitFor();
  assert.match((await page.locator('#forgotten').textContent()) ?? '', /Transcript forgotten by retention on/);
  assert.equal(pageErrors, []);
});

test.run();
