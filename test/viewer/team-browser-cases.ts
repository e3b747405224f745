import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, type Headless } from './browser.js';
import { holdFoldLock, projectWithId, serviceStorage, sessionTraces } from '../server/team-backlog.js';
import { BOB_SESSION, CLAUDE, CODEX, type Team } from '../server/team-fixture.js';

/**
 * The team view's pages in headless Chromium (the local viewer's set-up),
 * against `tracer serve` holding what two machines pushed: signing in through
 * the form, every page, the scope of each kind of token, hostile transcript
 * text shown as text, and no request leaving the service.
 */
export function teamBrowserCases(test: Test<{ team: Team }>, backend: 'sqlite' | 'postgres') {
  let headless: Headless;
  const requests: string[] = [];
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  const watch = (context: BrowserContext) => {
    context.on('request', (request) => requests.push(request.url()));
    context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    context.on('page', (page) => page.on('pageerror', (error) => pageErrors.push(error.message)));
  };

  /** A fresh browser profile signed in through the form with `token`; the page ends on /ui/. */
  const signedIn = async (team: Team, token: string): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await headless.browser.newContext({ viewport: { width: 1280, height: 900 } });
    watch(context);
    const page = await context.newPage();
    await page.goto(`${team.service.url}/ui/sign-in`);
    await page.fill('input[name=token]', token);
    await Promise.all([page.waitForURL(`${team.service.url}/ui/`), page.click('button[type=submit]')]);
    return { context, page };
  };

  test('browser: launch', async () => {
    headless = await launchBrowser();
    watch(headless.context);
  });

  test('browser: signing in with the form lands on the projects the token may see; the cookie is HttpOnly', async ({ team }) => {
    const { context, page } = await signedIn(team, team.tokens.alice);
    await page.locator('tr[data-project="acme/app"] td:nth-child(4)', { hasText: '4' }).waitFor();
    assert.equal(await page.locator('tr[data-project] a').allTextContents(), ['acme/app']);
    assert.is(await page.locator('tr[data-project="acme/app"] td:nth-child(5)').textContent(), '3');
    assert.match((await page.locator('.account').textContent()) ?? '', /alice \(acme\/app\)/);
    const cookies = await context.cookies();
    assert.is(cookies.length, 1);
    assert.equal(
      { name: cookies[0]!.name, httpOnly: cookies[0]!.httpOnly, sameSite: cookies[0]!.sameSite },
      { name: 'tracer_session', httpOnly: true, sameSite: 'Strict' },
    );
    assert.not.ok(cookies[0]!.value.includes(team.tokens.alice));
    assert.is(await page.evaluate('document.cookie'), '', 'no script can read the session');
    await context.close();
  });

  test("browser: the project page shows both machines' sessions, commits, filters and the AI share by person", async ({ team }) => {
    const { context, page } = await signedIn(team, team.tokens.org);
    await page.goto(`${team.service.url}/ui/p/acme/app`);
    await page.locator('#sessions li.session').nth(3).waitFor();
    assert.equal(await page.locator('#sessions li.session .badge.agent').allTextContents(), ['codex', 'cursor', 'codex', 'claude-code']);
    assert.equal(await page.locator('#sessions .person').allTextContents(), ['by bob', 'by alice', 'by alice', 'by alice']);
    await page.locator('#commits li.commit').nth(2).waitFor();
    assert.equal(
      await page.locator('#commits a.id').allTextContents(),
      [team.bobCommit, team.aliceCommits.release, team.aliceCommits.greet].map((sha) => sha.slice(0, 10)),
    );
    await page.locator('#share-person tr[data-key]').nth(1).waitFor();
    assert.equal(await page.locator('#share-person tr[data-key] th').allTextContents(), ['alice', 'bob']);
    assert.equal((await page.locator('#share-agent tr[data-key] th').allTextContents()).sort(), ['claude-code', 'codex', 'cursor']);
    assert.ok((await page.locator('#share-model tr[data-key]').count()) >= 2);
    assert.is(await page.locator('#share-time tr[data-key]').count(), 1);
    assert.ok((await page.locator('#share .bar .bar-ai').count()) >= 6, 'every row is drawn as a bar');
    // Filters as in the local viewer, kept in the URL.
    await page.locator('select[name=agent] option[value=codex]').waitFor({ state: 'attached' });
    await page.selectOption('select[name=agent]', 'codex');
    await page.waitForURL(/agent=codex/);
    await page.locator('#sessions li.session >> nth=2').waitFor({ state: 'detached' });
    assert.equal(
      (await page.locator('#sessions a.id').allTextContents()).sort(),
      [`${BOB_SESSION.slice(0, 23)}…`, `${CODEX.slice(0, 23)}…`].sort(),
    );
    const search = await context.newPage();
    await search.goto(`${team.service.url}/ui/p/acme/app?q=retry.py`);
    await search.locator('#sessions li.session').first().waitFor();
    assert.is(await search.locator('#sessions li.session').count(), 1);
    await context.close();
  });

  test('browser: the search box finds prompts and commit subjects, marks the words, shows hostile text as text, tells a bad query', async ({
    team,
  }) => {
    const { context, page } = await signedIn(team, team.tokens.org);
    await page.goto(`${team.service.url}/ui/p/acme/app`);
    // Commit links name their commits (issue 32): the list shows each subject.
    await page.locator('#commits li.commit').nth(2).waitFor();
    assert.equal(await page.locator('#commits .subject').allTextContents(), [
      'bob: release again',
      'changelog, version and retries',
      'greet helper',
    ]);
    // The index is built in the background after the push: wait until nothing is pending, through the page's own session.
    await page.waitForFunction(
      async () => {
        const response = await fetch('/ui/api/p/acme/app/search?q=greet');
        return response.ok && ((await response.json()) as { pending: number }).pending === 0;
      },
      undefined,
      { polling: 200, timeout: 30_000 },
    );
    await page.fill('#search-input', 'greet');
    await page.press('#search-input', 'Enter');
    await page.waitForURL(/search=greet/);
    await page.locator('#search-results li.hit').first().waitFor();
    const links = await page.locator('#search-results li.hit a.id').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
    assert.ok(links.includes(`/ui/p/acme/app/sessions/${CLAUDE}`), links.join());
    assert.ok(links.includes(`/ui/p/acme/app/commits/${team.aliceCommits.greet}`), links.join());
    const marked = await page.locator('#search-results mark').allTextContents();
    assert.ok(marked.length > 0 && marked.every((text) => text.toLowerCase().startsWith('greet')), marked.join());

    // Hostile transcript text is found and shown as text, never run.
    await page.fill('#search-input', 'pwned');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-results li.hit', { hasText: '__pwned' }).first().waitFor();
    assert.match((await page.locator('#search-results').textContent()) ?? '', /<script>window\.__pwned/);
    assert.is(await page.evaluate('window.__pwned'), undefined);
    assert.is(await page.locator('#search-results script, #search-results img').count(), 0);

    // A query the service cannot read is told in its words, under the box.
    await page.fill('#search-input', '"unclosed');
    await page.press('#search-input', 'Enter');
    await page.locator('#search-status .error').waitFor();
    assert.match((await page.locator('#search-status').textContent()) ?? '', /quoted phrase is not closed/);
    assert.is(await page.locator('#search-results li').count(), 0);

    // An earlier search answered late never replaces the latest one's answer.
    const greet = (url: URL) => url.pathname.endsWith('/search') && url.searchParams.get('q') === 'greet';
    await page.route(greet, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await route.continue();
    });
    const late = page.waitForResponse((response) => greet(new URL(response.url())));
    await page.fill('#search-input', 'greet');
    await page.press('#search-input', 'Enter');
    await page.fill('#search-input', '"unclosed again');
    await page.press('#search-input', 'Enter');
    await late;
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 50)));
    assert.match((await page.locator('#search-status').textContent()) ?? '', /quoted phrase is not closed/);
    assert.is(await page.locator('#search-results li').count(), 0);
    await page.unroute(greet);

    // A search is a link: the same URL searches again.
    const again = await context.newPage();
    await again.goto(`${team.service.url}/ui/p/acme/app?search=${encodeURIComponent('"release again"')}`);
    await again.locator('#search-results li.hit').first().waitFor();
    assert.equal(await again.locator('#search-results li.hit a.id').allTextContents(), [team.bobCommit.slice(0, 10)]);
    await context.close();
  });

  test('browser: a session page shows the hostile transcript as text, its timeline and its commit', async ({ team }) => {
    const { context, page } = await signedIn(team, team.tokens.alice);
    await page.goto(`${team.service.url}/ui/p/acme/app/sessions/${CLAUDE}`);
    await page.locator('#transcript li.msg').filter({ hasText: 'window.__pwned = "script"' }).first().waitFor();
    await page.locator('#session-commits a').first().waitFor();
    assert.is(await page.evaluate('window.__pwned'), undefined);
    assert.is(await page.locator('#app script, #app img, #app iframe').count(), 0);
    assert.is(await page.locator('a[href^="javascript"]').count(), 0);
    assert.match(await page.locator('#transcript').innerText(), /<img src="x" onerror=/);
    assert.is(await page.locator('#session-commits a').first().textContent(), team.aliceCommits.greet.slice(0, 10));
    assert.is(
      await page.locator('#session-commits a').first().getAttribute('href'),
      `/ui/p/acme/app/commits/${team.aliceCommits.greet}`,
      'deep links keep the team view prefix',
    );
    assert.is(await page.locator('#timeline li').count(), 3);
    assert.is(await page.locator('a[href*="/blame/"]').count(), 0, 'no blame links: the service keeps no repository');
    await context.close();
  });

  test("browser: a commit page lists the ledger's files and ranges and the session behind them", async ({ team }) => {
    const { context, page } = await signedIn(team, team.tokens.alice);
    await page.goto(`${team.service.url}/ui/p/acme/app/commits/${team.aliceCommits.greet}`);
    await page.locator('#commit-sessions a').first().waitFor();
    assert.is(await page.locator('#commit-sessions a').textContent(), CLAUDE);
    assert.is(await page.locator('#commit-sessions a').getAttribute('href'), `/ui/p/acme/app/sessions/${CLAUDE}`);
    assert.match(await page.locator('#app').innerText(), /src\/greet\.ts/);
    assert.match(await page.locator('#app').innerText(), /1[–-]3/);
    assert.is(await page.locator('table.diff-table').count(), 0);
    await context.close();
  });

  test('browser: what the token may not see is Not found; signing out ends the session', async ({ team }) => {
    const outsider = await signedIn(team, team.tokens.other);
    for (const path of ['/ui/p/acme/app', `/ui/p/acme/app/sessions/${CLAUDE}`, `/ui/p/acme/app/commits/${team.aliceCommits.greet}`]) {
      const response = await outsider.page.goto(`${team.service.url}${path}`);
      assert.is(response?.status(), 404, path);
      await outsider.page.locator('h1', { hasText: 'Not found' }).waitFor();
    }
    await outsider.page.goto(`${team.service.url}/ui/`);
    await outsider.page.locator('tr[data-project]').first().waitFor();
    assert.equal(await outsider.page.locator('tr[data-project] a').allTextContents(), ['other/secret']);
    await Promise.all([outsider.page.waitForURL(/\/ui\/sign-in$/), outsider.page.click('form.sign-out button')]);
    assert.equal(await outsider.context.cookies(), []);
    const after = await outsider.page.goto(`${team.service.url}/ui/p/other/secret`);
    assert.is(after?.status(), 401);
    await outsider.page.locator('input[name=token]').waitFor();
    await outsider.context.close();

    const wrong = await headless.browser.newContext();
    watch(wrong);
    const page = await wrong.newPage();
    await page.goto(`${team.service.url}/ui/sign-in`);
    await page.fill('input[name=token]', 'trc_not_a_token_of_this_service');
    await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
    await page.locator('[role=alert]', { hasText: 'not known to this service' }).waitFor();
    assert.equal(await wrong.cookies(), []);
    await wrong.close();
  });

  // PostgreSQL only: there the test can hold the service's fold back (its lock) for as long as it looks.
  if (backend === 'postgres')
    test('browser: far behind a push, the project page shows what is folded and "Catching up", then every session', async ({ team }) => {
      const storage = await serviceStorage(team.service);
      let release: (() => Promise<void>) | undefined;
      try {
        const id = await projectWithId(storage, 'acme', 'catching-up');
        await storage.insertItems(id, 'traces', sessionTraces('early-session', 100), 'carol');
        await storage.refreshView(id);
        release = await holdFoldLock(team.service, id);
        await storage.insertItems(id, 'traces', sessionTraces('late-session', 6_000, Date.UTC(2025, 6, 1)), 'carol');
        const { context, page } = await signedIn(team, team.tokens.org);
        await page.goto(`${team.service.url}/ui/p/acme/catching-up`);
        await page.locator('#catching-up', { hasText: 'Catching up: 100 of 6100 rows folded in' }).waitFor();
        await page.locator('#sessions li.session').first().waitFor();
        assert.equal(await page.locator('#sessions a.id').allTextContents(), ['early-session']);
        const letGo = release;
        release = undefined;
        await letGo();
        await page.locator('#catching-up').waitFor({ state: 'hidden' });
        await page.locator('#sessions li.session').nth(1).waitFor();
        assert.equal(await page.locator('#sessions a.id').allTextContents(), ['late-session', 'early-session']);
        await page.locator('#stats', { hasText: '6100 traces' }).waitFor();
        await context.close();
      } finally {
        await release?.();
        await storage.close();
      }
    });

  test('browser: no request left the service, no script broke the CSP, no page threw', async ({ team }) => {
    await headless.close();
    assert.ok(requests.length > 20);
    assert.equal(
      requests.filter((url) => !url.startsWith(`${team.service.url}/`)),
      [],
    );
    assert.equal(cspViolations, []);
    assert.equal(pageErrors, []);
  });
}
