import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LocalDataSource } from '../../src/viewer/local/store-source.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { loadBlameFile } from '../../src/viewer/blame-wiring.js';
import { cleanup, runMain } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { PROJECT_ID } from '../capture/ledger-helpers.js';
import { goneBranchSquash, SORT } from '../attribution/reconcile-fixture.js';
import { launchSignedIn, type Headless } from './browser.js';

/**
 * Lines reconcile re-attached by content hash are marked `recovered` in the
 * local viewer, as `tracer blame` and `tracer show` mark them: a teammate's
 * clone where a squash whose branch is gone was reconciled (only its ledgers
 * were pulled), in headless Chromium, under the viewer's CSP. The teammate then
 * pushes, and the team view's commit page (the same page, without a diff) lists
 * the recovered ranges too.
 */
let viewer: ViewerServer;
let headless: Headless;
let squash: string;
let service: ServiceHandle;
let teamToken: string;

test.before(async () => {
  const gone = await goneBranchSquash();
  squash = gone.squash;
  const { b } = gone;
  const reconciled = await runMain(['reconcile'], { cwd: b.repo, home: b.home });
  if (reconciled.code !== 0) throw new Error(`tracer reconcile failed: ${reconciled.stderr}`);
  // The registry the hooks write on first capture: it tells the viewer where the clone is (for diffs and blame).
  const now = new Date().toISOString();
  writeFileSync(
    join(b.home, 'projects.json'),
    JSON.stringify({ projects: { [PROJECT_ID]: { dir: b.dir, repo_paths: [b.repo], created_at: now, updated_at: now } } }),
  );
  service = await startService();
  await service.createProject('acme', 'tools');
  teamToken = await service.createToken({ org: 'acme', project: 'tools', name: 'bea' });
  for (const args of [['remote', 'add', 'origin', `${service.url}/acme/tools`, '--token', teamToken], ['push']]) {
    const result = await runMain(args, { cwd: b.repo, home: b.home });
    if (result.code !== 0) throw new Error(`tracer ${args[0]} failed: ${result.stderr}`);
  }
  viewer = await startViewer({
    host: '127.0.0.1',
    port: 0,
    source: new LocalDataSource({ home: b.home, cwd: process.cwd(), env: process.env }, await loadBlameFile(process.env)),
  });
  headless = await launchSignedIn(viewer.url);
});

test.after(async () => {
  await headless?.close();
  await viewer?.close();
  await stopAllServices();
  cleanup();
});

async function open(path: string): Promise<Page> {
  const page = await headless.context.newPage();
  await page.goto(`${viewer.origin}${path}`);
  return page;
}

test('the commit page marks the recovered lines in the diff and lists their ranges', async () => {
  const page = await open(`/p/${PROJECT_ID}/commits/${squash}`);
  await page.locator('table.diff-table').first().waitFor();
  assert.equal(
    await page.locator('tr.recovered-line td.code').allTextContents(),
    SORT.map((line) => `+${line}`),
  );
  assert.equal(await page.locator('tr.recovered-line td.who').allTextContents(), Array(SORT.length).fill('ai recovered'));
  assert.is(await page.locator('tr.add:not(.recovered-line)').count(), 5, 'the braces and the doc are not recovered');
  assert.is(await page.locator('tr.ai-line:not(.recovered-line)').count(), 0);
  assert.is(await page.locator('div.recovered').textContent(), 'recovered by content hash: 1–5');
  assert.match((await page.locator('#diff-title + p').textContent()) ?? '', /re-attached by their content hash/);
  await page.close();
});

test('the blame page marks the recovered run', async () => {
  const page = await open(`/p/${PROJECT_ID}/blame/src/sort.ts`);
  await page.locator('#blame tr').first().waitFor();
  assert.is(await page.locator('#blame tr').count(), SORT.length);
  assert.equal(await page.locator('#blame .gutter .badge').allTextContents(), ['ai', 'recovered']);
  await page.close();
});

test("the team view's commit page lists the recovered ranges", async () => {
  const page = await headless.context.newPage();
  await page.goto(`${service.url}/ui/sign-in`);
  await page.fill('input[name=token]', teamToken);
  await Promise.all([page.waitForURL(`${service.url}/ui/`), page.click('button[type=submit]')]);
  await page.goto(`${service.url}/ui/p/acme/tools/commits/${squash}`);
  await page.locator('div.recovered').waitFor();
  assert.is(await page.locator('div.recovered').textContent(), 'recovered by content hash: 1–5');
  assert.is(await page.locator('table.diff-table').count(), 0, 'the service keeps no repository: no diff');
  await page.close();
});

test('no request left the viewer or the service, and nothing broke their CSP', () => {
  assert.ok(headless.requests.length > 3);
  assert.equal(
    headless.requests.filter((url) => !url.startsWith(`${viewer.origin}/`) && !url.startsWith(`${service.url}/`)),
    [],
  );
  assert.equal(headless.cspViolations, []);
});

test.run();
