import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, runMain } from '../helpers/cli.js';
import { CLAUDE, recordedStore } from './store.js';
import { get, login, startViewerProcess, VIEWER_BIN, type RunningViewer } from './viewer-process.js';

// One store for the file: building it runs a dozen hooks and two commits.
let store: Awaited<ReturnType<typeof recordedStore>>;
let viewer: RunningViewer;
let cookie: string;

test.before(async () => {
  store = await recordedStore();
  viewer = await startViewerProcess({ home: store.home, cwd: store.repo });
  cookie = await login(viewer);
});

test.after(async () => {
  await viewer?.stop();
  cleanup();
});

const authed = (path: string, headers: Record<string, string> = {}) => get(viewer.origin, path, { cookie, ...headers });

test('the first line on stdout is a loopback URL with a token', () => {
  assert.match(viewer.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
});

test('without the token or its cookie every page, API route and asset is refused', async () => {
  for (const path of ['/', '/api/projects', `/p/${store.projectId}`, '/assets/app.js', '/api/p/x/stats?token=wrong']) {
    const answer = await get(viewer.origin, path);
    assert.is(answer.status, 401, path);
  }
  assert.is((await get(viewer.origin, '/', { cookie: cookie.replace(/=.*/, '=forged') })).status, 401);
});

test('the token is traded for an HttpOnly, SameSite=Strict cookie and leaves the address bar', async () => {
  const url = new URL(viewer.url);
  const answer = await get(viewer.origin, `/p/${store.projectId}?q=greet&token=${url.searchParams.get('token')}`);
  assert.is(answer.status, 303);
  assert.is(answer.headers.location, `/p/${store.projectId}?q=greet`);
  const setCookie = String(answer.headers['set-cookie']);
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
});

test('a Host other than the served address and port is refused, cookie or not (DNS rebinding)', async () => {
  const port = new URL(viewer.origin).port;
  for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, `127.0.0.1.nip.io:${port}`]) {
    assert.is((await authed('/api/projects', { host })).status, 421, host);
  }
  assert.is((await authed('/api/projects', { host: `localhost:${port}` })).status, 200);
});

test('pages carry a CSP without inline script, and the API answers JSON', async () => {
  const page = await authed('/');
  assert.is(page.status, 200);
  const csp = String(page.headers['content-security-policy']);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.not.match(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /default-src 'none'/);
  assert.is(page.headers['x-content-type-options'], 'nosniff');
  const projects = JSON.parse((await authed('/api/projects')).body);
  assert.equal(
    projects.map((project: { id: string; repo_path: string }) => [project.id, project.repo_path]),
    [[store.projectId, store.repo]],
  );
});

test('a torn last line of traces.jsonl is skipped: the sessions and figures still come', async () => {
  const stats = JSON.parse((await authed(`/api/p/${store.projectId}/stats`)).body);
  assert.equal([stats.sessions, stats.commits, stats.traces], [3, 2, 7]);
  const sessions = JSON.parse((await authed(`/api/p/${store.projectId}/sessions?agent=claude-code`)).body);
  assert.equal(
    sessions.items.map((session: { conversation_id: string }) => session.conversation_id),
    [CLAUDE],
  );
});

test('unknown ids, a missing transcript and paths outside the repository are 404s, never files', async () => {
  const p = `/api/p/${store.projectId}`;
  const cases: Array<[string, number, string?]> = [
    ['/p/no-such-project', 404],
    ['/api/p/no-such-project/sessions', 404, 'unknown_project'],
    [`${p}/sessions/no-such-session`, 404, 'unknown_session'],
    [`${p}/sessions/no-such-session/transcript`, 404, 'transcript_missing'],
    [`${p}/commits/0123456789abcdef`, 404, 'unknown_commit'],
    [`${p}/commits/..%2F..%2Fetc`, 404, 'unknown_commit'],
    [`${p}/blame/..%2F..%2F..%2Fetc%2Fpasswd`, 404, 'path_outside_repository'],
    [`${p}/blame/src/../../outside.txt`, 404],
    [`${p}/blame/%2Fetc%2Fpasswd`, 404, 'path_outside_repository'],
    [`${p}/sessions/${CLAUDE}/transcript?cursor=99999999999.1`, 400, 'bad_cursor'],
    ['/assets/..%2F..%2Fpackage.json', 404],
    ['/assets/app.js.map', 404],
    ['/nowhere', 404],
  ];
  for (const [path, status, code] of cases) {
    const answer = await authed(path);
    assert.is(answer.status, status, path);
    assert.not.match(answer.body, /root:x:0:0/);
    if (code) assert.is(JSON.parse(answer.body).code, code, path);
  }
});

test('the viewer never writes the store: every file of the home is unchanged after a tour of the API', async () => {
  const before = fingerprint(store.home);
  const p = `/api/p/${store.projectId}`;
  for (const path of [
    '/api/projects',
    `${p}/stats`,
    `${p}/facets`,
    `${p}/sessions?q=greet`,
    `${p}/commits`,
    `${p}/sessions/${CLAUDE}`,
    `${p}/sessions/${CLAUDE}/transcript`,
    `${p}/commits/${store.greetCommit}`,
  ])
    assert.is((await authed(path)).status, 200, path);
  assert.equal(fingerprint(store.home), before);
});

test('tracer-viewer is the same command; --project takes a repository path; a bad --port is a usage error', async () => {
  const launched = await startViewerProcess({
    home: store.home,
    cwd: store.repo,
    bin: VIEWER_BIN,
    args: ['--no-open', '--project', store.repo],
  });
  try {
    assert.match(launched.url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/p/${store.projectId}\\?token=`));
  } finally {
    await launched.stop();
  }
  const bad = await runMain(['view', '--no-open', '--port', 'eighty'], { cwd: store.repo, home: store.home });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /invalid_port/);
});

test('--host other than loopback warns that the viewer is reachable from other machines', async () => {
  const open = await startViewerProcess({ home: store.home, cwd: store.repo, args: ['--host', '0.0.0.0'] });
  try {
    await get(open.origin.replace('0.0.0.0', '127.0.0.1'), '/').catch(() => undefined);
    assert.match(open.url, /^http:\/\/0\.0\.0\.0:\d+\//);
    assert.match(open.stderr(), /reachable from other machines/);
  } finally {
    await open.stop();
  }
});

/** Path, size, mtime and content hash of every file under a folder. */
function fingerprint(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    const info = statSync(path);
    out.push(`${path} ${info.size} ${info.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
  }
  return out.sort();
}

test.run();
