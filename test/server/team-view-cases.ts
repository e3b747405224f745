import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { viewProgress } from '../../src/server/team/progress.js';
import { spawnService } from '../helpers/service.js';
import { clientFor } from './http.js';
import { holdFoldLock, projectWithId, serviceStorage, sessionTraces, until } from './team-backlog.js';
import { BOB_SESSION, browserlessClient, CLAUDE, type Team } from './team-fixture.js';

interface Progress {
  catching_up: boolean;
  folded: number;
  total: number;
}

/**
 * The team view's HTTP rules on a team that pushed through the real hooks:
 * sign-in (one form field, a session cookie that is not the token, refusal of
 * wrong tokens and of the admin secret), scope (project token, org token,
 * other org, no session), GET-only data routes and the security headers.
 */
export function teamViewCases(test: Test<{ team: Team }>) {
  test('the sign-in form has one field, token, posted to /ui/sign-in; pages and data without a session answer 401', async ({ team }) => {
    const client = browserlessClient(team.service.url);
    const form = await client.get('/ui/sign-in');
    assert.is(form.status, 200);
    const html = await form.text();
    assert.equal(
      [...html.matchAll(/<input [^>]*name="([^"]+)"/g)].map((match) => match[1]),
      ['token'],
    );
    assert.match(html, /<form class="sign-in" method="post" action="\/ui\/sign-in">/);
    for (const path of [
      '/ui/',
      '/ui/p/acme/app',
      `/ui/p/acme/app/sessions/${CLAUDE}`,
      `/ui/p/acme/app/commits/${team.aliceCommits.greet}`,
    ]) {
      const page = await client.get(path);
      assert.is(page.status, 401, path);
      assert.match(await page.text(), /name="token"/, `${path} offers the sign-in form`);
    }
    for (const path of ['/ui/api/projects', '/ui/api/p/acme/app/sessions', '/ui/api/p/acme/app/share']) {
      const data = await client.get(path);
      assert.is(data.status, 401, path);
      // Every error of the service is an RFC 9457 problem (wire contract), the team view's data included.
      assert.match(data.headers.get('content-type') ?? '', /^application\/problem\+json/, path);
      const problem = (await data.json()) as Record<string, unknown>;
      assert.equal(
        [problem.status, problem.code, typeof problem.type, typeof problem.title, typeof problem.detail, typeof problem.request_id],
        [401, 'sign_in_required', 'string', 'string', 'string', 'string'],
        path,
      );
    }
  });

  test('a good token gives an HttpOnly, SameSite=Strict session cookie that is not the token; sign-out ends the session', async ({
    team,
  }) => {
    const client = browserlessClient(team.service.url);
    const signedIn = await client.signIn(team.tokens.alice);
    assert.is(signedIn.status, 303);
    assert.is(signedIn.headers.get('location'), '/ui/');
    const cookie = signedIn.headers.get('set-cookie')!;
    assert.match(cookie, /^tracer_session=[A-Za-z0-9_-]{43};/);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Strict/);
    assert.match(cookie, /; Path=\/ui/);
    assert.not.ok(cookie.includes(team.tokens.alice), 'the token is never in the cookie');
    assert.not.ok(signedIn.headers.get('location')!.includes(team.tokens.alice), 'nor in the URL');
    const projects = await client.get('/ui/api/projects');
    assert.is(projects.status, 200);
    const signedOut = await client.get('/ui/sign-out', { method: 'POST' });
    assert.is(signedOut.status, 303);
    assert.match(signedOut.headers.get('set-cookie')!, /^tracer_session=;/);
    assert.is((await client.get('/ui/api/projects')).status, 401, 'the old cookie opens nothing once signed out');
  });

  test('a wrong token, an empty one and the admin secret get a page saying so and no cookie', async ({ team }) => {
    for (const token of ['trc_notarealtoken', '', team.service.adminSecret!, `${team.tokens.alice}x`]) {
      const client = browserlessClient(team.service.url);
      const refused = await client.signIn(token);
      assert.is(refused.status, 401);
      assert.is(refused.headers.get('set-cookie'), null);
      const html = await refused.text();
      assert.match(html, /not known to this service/);
      if (token !== '') assert.not.ok(html.includes(token), 'the page does not echo what was typed');
      assert.is((await client.get('/ui/api/projects')).status, 401);
    }
  });

  test('a project token sees its project only; another project of its org and another org are 404', async ({ team }) => {
    const client = browserlessClient(team.service.url);
    await client.signIn(team.tokens.alice);
    assert.equal(
      ((await (await client.get('/ui/api/projects')).json()) as Array<{ id: string }>).map((project) => project.id),
      ['acme/app'],
    );
    assert.is((await client.get('/ui/p/acme/app')).status, 200);
    for (const path of [
      '/ui/p/acme/web',
      '/ui/p/other/secret',
      '/ui/p/nobody/nothing',
      '/ui/api/p/acme/web/sessions',
      '/ui/api/p/other/secret/stats',
      `/ui/api/p/other/secret/sessions/${team.secretSession}`,
      `/ui/api/p/other/secret/sessions/${team.secretSession}/transcript`,
      '/ui/api/p/other/secret/share',
      '/ui/api/p/nobody/nothing/stats',
    ])
      assert.is((await client.get(path)).status, 404, path);
    // The same body for a project that exists elsewhere and one that does not: nothing to tell them apart.
    const elsewhere = (await (await client.get('/ui/api/p/other/secret/stats')).json()) as { code: string };
    const nowhere = (await (await client.get('/ui/api/p/nobody/nothing/stats')).json()) as { code: string };
    assert.is(elsewhere.code, 'unknown_project');
    assert.is(nowhere.code, 'unknown_project');
  });

  test("an org token sees every project of its org, both machines' sessions, and nothing of another org", async ({ team }) => {
    const client = browserlessClient(team.service.url);
    await client.signIn(team.tokens.org);
    const ids = ((await (await client.get('/ui/api/projects')).json()) as Array<{ id: string }>).map((project) => project.id).sort();
    assert.equal(ids, ['acme/app', 'acme/web']);
    assert.is((await client.get('/ui/p/acme/web')).status, 200);
    const sessions = (await (await client.get('/ui/api/p/acme/app/sessions')).json()) as {
      total: number;
      items: Array<{ conversation_id: string; person: string }>;
    };
    assert.is(sessions.total, 4);
    const people = new Map(sessions.items.map((session) => [session.conversation_id, session.person]));
    assert.is(people.get(CLAUDE), 'alice');
    assert.is(people.get(BOB_SESSION), 'bob');
    assert.is((await client.get('/ui/api/p/other/secret/stats')).status, 404);
    const outsider = browserlessClient(team.service.url);
    await outsider.signIn(team.tokens.other);
    assert.is((await outsider.get('/ui/api/p/acme/app/sessions')).status, 404);
    assert.is((await outsider.get(`/ui/api/p/acme/app/sessions/${CLAUDE}/transcript`)).status, 404);
    assert.is((await outsider.get('/ui/p/acme/app')).status, 404);
  });

  test('the data answers from the pushed rows: stats, share by person, a commit ledger, a transcript page', async ({ team }) => {
    const client = browserlessClient(team.service.url);
    await client.signIn(team.tokens.org);
    const stats = (await (await client.get('/ui/api/p/acme/app/stats')).json()) as { sessions: number; commits: number; traces: number };
    assert.equal({ sessions: stats.sessions, commits: stats.commits }, { sessions: 4, commits: 3 });
    const share = (await (await client.get('/ui/api/p/acme/app/share')).json()) as {
      by_person: Array<{ key: string; ai: number }>;
      by_agent: Array<{ key: string }>;
    };
    assert.equal(share.by_person.map((row) => row.key).sort(), ['alice', 'bob']);
    assert.ok(
      share.by_person.every((row) => row.ai > 0),
      'both people pushed lines an agent wrote',
    );
    assert.equal(share.by_agent.map((row) => row.key).sort(), ['claude-code', 'codex', 'cursor']);
    const commit = (await (await client.get(`/ui/api/p/acme/app/commits/${team.aliceCommits.greet.slice(0, 8)}`)).json()) as {
      sha: string;
      files: Array<{ path: string; conversations: Array<{ conversation_id: string | null; ranges: unknown[] }> }>;
      diff: unknown;
    };
    assert.is(commit.sha, team.aliceCommits.greet, 'a prefix finds the commit');
    assert.equal(
      commit.files.map((file) => file.path),
      ['src/greet.ts'],
    );
    assert.is(commit.files[0]!.conversations[0]!.conversation_id, CLAUDE);
    assert.is(commit.diff, null, 'no repository on the service, no diff');
    assert.is((await client.get('/ui/api/p/acme/app/commits/0000000000')).status, 404);
    const first = (await (await client.get(`/ui/api/p/acme/app/sessions/${CLAUDE}/transcript?limit=2`)).json()) as {
      entries: unknown[];
      next: string;
    };
    assert.is(first.entries.length, 2);
    const rest = (await (await client.get(`/ui/api/p/acme/app/sessions/${CLAUDE}/transcript?cursor=${first.next}&limit=500`)).json()) as {
      entries: Array<{ text?: string }>;
      next: string | null;
    };
    assert.is(rest.next, null);
    assert.ok(
      rest.entries.some((entry) => entry.text?.includes('<script>window.__pwned')),
      'the hostile text arrives as data',
    );
  });

  test('the data routes are GET only, and every answer carries the CSP without inline script', async ({ team }) => {
    const client = browserlessClient(team.service.url);
    await client.signIn(team.tokens.org);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const response = await client.get('/ui/api/p/acme/app/sessions', { method });
      assert.is(response.status, 404, method);
    }
    for (const path of ['/ui/', '/ui/sign-in', '/ui/api/projects', '/ui/p/acme/app']) {
      const response = await client.get(path);
      const csp = response.headers.get('content-security-policy')!;
      assert.match(csp, /script-src 'self'/, path);
      assert.not.match(csp, /unsafe-inline/, path);
      assert.is(response.headers.get('x-frame-options'), 'DENY');
      assert.is(response.headers.get('cache-control'), 'no-store');
    }
  });

  test('a sign-in form posted from another site is refused, whatever it carries', async ({ team }) => {
    const attempts: Array<Record<string, string>> = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site', origin: 'null' },
      { origin: 'null' },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${team.service.url}/ui/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ token: team.tokens.alice }).toString(),
        redirect: 'manual',
      });
      assert.is(response.status, 403, JSON.stringify(headers));
      assert.is(response.headers.get('set-cookie'), null);
    }
  });

  test('the token never reaches the service log', async ({ team }) => {
    const { stdout, stderr } = team.service.output();
    for (const token of Object.values(team.tokens)) assert.not.ok(`${stdout}${stderr}`.includes(token));
    assert.match(stdout + stderr, /team view sign-in/, 'the sign-ins were logged (by token name)');
  });

  test('sign-in attempts are rate-limited per address: past the limit even the right token gets 429 and no cookie', async ({ team }) => {
    const service = await spawnService({ backend: team.service.backend, signInsPerMinute: 3 });
    await service.createProject('acme', 'app');
    const token = await service.createToken({ org: 'acme', project: 'app', name: 'alice' });
    const statuses: number[] = [];
    for (const attempt of ['trc_wrong1', 'trc_wrong2', 'trc_wrong3', token]) {
      const response = await browserlessClient(service.url).signIn(attempt);
      statuses.push(response.status);
      if (response.status === 429) {
        assert.is(response.headers.get('set-cookie'), null);
        assert.match(await response.text(), /Too many sign-in attempts/);
      }
    }
    assert.equal(statuses, [401, 401, 401, 429]);
    await service.stop();
  });

  test('progress: 401 without a session, 404 for a project the token may not see, like every /ui/api route', async ({ team }) => {
    const anonymous = browserlessClient(team.service.url);
    const refused = await anonymous.get('/ui/api/p/acme/app/progress');
    assert.is(refused.status, 401);
    assert.is(((await refused.json()) as { code: string }).code, 'sign_in_required');
    const alice = browserlessClient(team.service.url);
    await alice.signIn(team.tokens.alice);
    for (const path of ['/ui/api/p/acme/web/progress', '/ui/api/p/other/secret/progress', '/ui/api/p/nobody/nothing/progress']) {
      const hidden = await alice.get(path);
      assert.is(hidden.status, 404, path);
      assert.is(((await hidden.json()) as { code: string }).code, 'unknown_project', path);
    }
    assert.is((await alice.get('/ui/api/p/acme/app/progress')).status, 200);
  });

  test("progress: after the team's pushes every row of the project is folded in", async ({ team }) => {
    const storage = await serviceStorage(team.service);
    try {
      const project = (await storage.findProject('acme', 'app'))!;
      const [rows] = await storage.query<{ n: number }>('SELECT COUNT(*) AS n FROM items WHERE project_id = ?', [project.id]);
      assert.ok(rows!.n > 10);
      const lead = browserlessClient(team.service.url);
      await lead.signIn(team.tokens.org);
      assert.equal(await (await lead.get('/ui/api/p/acme/app/progress')).json(), { catching_up: false, folded: rows!.n, total: rows!.n });
    } finally {
      await storage.close();
    }
  });

  test('with more than 5,000 rows behind a page answers at once from what is folded, and progress counts the rest', async ({ team }) => {
    const storage = await serviceStorage(team.service);
    const lead = browserlessClient(team.service.url);
    await lead.signIn(team.tokens.org);
    // Each read gives up after 10 s: one that waits for a held-back fold fails instead of hanging.
    const read = async <T>(path: string) => (await (await lead.get(path, { signal: AbortSignal.timeout(10_000) })).json()) as T;
    const sessionIds = async () =>
      (await read<{ items: Array<{ conversation_id: string }> }>('/ui/api/p/acme/bulk/sessions')).items.map((row) => row.conversation_id);
    try {
      const id = await projectWithId(storage, 'acme', 'bulk');
      await storage.insertItems(id, 'traces', sessionTraces('early-session', 100), 'carol');
      assert.equal(
        await read<Progress>('/ui/api/p/acme/bulk/progress'),
        { catching_up: false, folded: 100, total: 100 },
        'a few rows behind: the read waits for them',
      );
      // On PostgreSQL the service's fold is held back meanwhile, so what "at once" shows is exact.
      const release = team.service.backend === 'postgres' ? await holdFoldLock(team.service, id) : undefined;
      try {
        await storage.insertItems(id, 'traces', sessionTraces('late-session', 6_000, Date.UTC(2025, 6, 1)), 'carol');
        const behind = await read<Progress>('/ui/api/p/acme/bulk/progress');
        assert.is(behind.catching_up, true);
        assert.is(behind.total, 6_100);
        assert.ok(behind.folded >= 100 && behind.folded < 6_100, String(behind.folded));
        if (release) {
          assert.is(behind.folded, 100);
          assert.equal(await sessionIds(), ['early-session'], 'the sessions answer from what is folded, without waiting');
        }
      } finally {
        await release?.();
      }
      const done = await until(
        () => read<Progress>('/ui/api/p/acme/bulk/progress'),
        (progress) => !progress.catching_up,
      );
      assert.equal(done, { catching_up: false, folded: 6_100, total: 6_100 });
      assert.equal(await sessionIds(), ['late-session', 'early-session']);
    } finally {
      await storage.close();
    }
  });

  test('an upload to PostgreSQL folds its rows in before it answers; on SQLite they are folded once uploads pause', async ({ team }) => {
    const storage = await serviceStorage(team.service);
    try {
      const id = await projectWithId(storage, 'acme', 'pushed');
      const items = sessionTraces('pushed-session', 300).map((item) => JSON.parse(item.body) as unknown);
      const pushed = await clientFor(team.service, team.tokens.org, 'acme', 'pushed').push('traces', items);
      assert.is(pushed.status, 200, pushed.text);
      const right = await viewProgress(storage, id);
      if (team.service.backend === 'postgres') assert.equal(right, { folded: 300, total: 300 });
      else {
        assert.equal(right, { folded: 0, total: 300 }, 'not folded in while a push may still be going on');
        // Nobody asks: the service folds them in by itself after the pause.
        await until(
          () => viewProgress(storage, id),
          (progress) => progress.folded === 300,
          10_000,
        );
      }
    } finally {
      await storage.close();
    }
  });
}
