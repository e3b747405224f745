// Issue 29, "Must hold", end to end on SQLite and PostgreSQL: Claude Code's
// hooks (as `tracer init` installs them) record an edit and a Stop whose
// transcript holds a secret of every format; a commit, a push to a real `tracer
// serve`, a teammate's clone and pull. No secret appears in either machine's
// TRACER_HOME, in the service's database or blob store, in the git notes, in
// the team view, in either local viewer, or in the `tracer stats --markdown`
// comment `tracer ci` posts; every benign string is still there, byte for byte.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, runTracer, settleSpool, tempDir, type RunResult } from '../helpers/cli.js';
import { spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { spoolFolded } from '../helpers/spool.js';
import { browserlessClient } from '../server/team-fixture.js';
import { startViewerProcess, get } from '../viewer/viewer-process.js';
import { encodings } from '../redact/corpus-figures.js';
import { serviceContents } from '../redact/service-dump.js';
import { secretTranscript, SESSION_ID, type SecretTranscript } from '../redact/transcript-fixture.js';

test.after(async () => {
  await stopAllServices();
  cleanup();
});

const gitEnv = (home: string) => ({
  ...cleanEnv(),
  TRACER_HOME: home,
  GIT_AUTHOR_NAME: 'Dev',
  GIT_AUTHOR_EMAIL: 'dev@example.com',
  GIT_COMMITTER_NAME: 'Dev',
  GIT_COMMITTER_EMAIL: 'dev@example.com',
});

function git(cwd: string, home: string, ...args: string[]): string {
  const output = execFileSync('git', args, { cwd, env: gitEnv(home), encoding: 'utf8' }).trim();
  // git's hooks fold in the background: what follows reads tracer's files, as a tracer command would after folding first.
  settleSpool(home);
  return output;
}

interface Box {
  home: string;
  repo: string;
  run(args: string[]): Promise<RunResult>;
}

function box(repo: string): Box {
  const home = join(tempDir('redact-e2e-home-'), 'home');
  return { home, repo, run: (args) => runTracer(args, { cwd: repo, home }) };
}

async function ok(result: Promise<RunResult>, what: string): Promise<RunResult> {
  const done = await result;
  assert.is(done.code, 0, `${what}: ${done.stdout}\n${done.stderr}`);
  return done;
}

/** The command Claude Code runs for an event, from the settings tracer init wrote. */
function hook(machine: Box, event: string, payload: object): Promise<void> {
  const settings = JSON.parse(readFileSync(join(machine.repo, '.claude/settings.json'), 'utf8'));
  const entry = settings.hooks[event]
    .flatMap((group: any) => group.hooks)
    .find((one: any) => one.command.endsWith(` hook claude-code ${event}`));
  const result = spawnSync('sh', ['-c', entry.command], {
    cwd: machine.repo,
    input: JSON.stringify(payload),
    env: gitEnv(machine.home),
    encoding: 'utf8',
  });
  assert.is(result.status, 0, result.stderr);
  return spoolFolded(machine.home);
}

function everything(dir: string): string {
  let all = '';
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    all += entry.isDirectory() ? everything(path) : `${readFileSync(path).toString('latin1')}\n`;
  }
  return all;
}

function assertNoSecret(where: string, text: string, fixture: SecretTranscript): void {
  for (const secret of fixture.secrets)
    for (const form of encodings(secret)) assert.not.ok(text.includes(form), `${where} holds a secret: ${secret.slice(0, 10)}…`);
}

/** Every page and API answer of a viewer (local or team), for every project, session, transcript page and commit. */
async function crawl(fetchPath: (path: string) => Promise<{ status: number; body: string }>, prefix: string): Promise<string> {
  const bodies: string[] = [];
  const json = async (path: string) => {
    const answer = await fetchPath(`${prefix}${path}`);
    assert.is(answer.status, 200, `${prefix}${path}: ${answer.body.slice(0, 200)}`);
    bodies.push(answer.body);
    return JSON.parse(answer.body);
  };
  bodies.push((await fetchPath(`${prefix}/`)).body);
  for (const project of await json('/api/projects')) {
    const p = `/api/p/${project.id}`;
    bodies.push((await fetchPath(`${prefix}/p/${project.id}`)).body);
    await json(`${p}/stats`);
    await json(`${p}/facets`);
    for (const session of (await json(`${p}/sessions?limit=100`)).items) {
      const id = encodeURIComponent(session.conversation_id);
      await json(`${p}/sessions/${id}`);
      for (let cursor: string | null = ''; cursor !== null;)
        cursor = (await json(`${p}/sessions/${id}/transcript?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).next;
    }
    for (const commit of (await json(`${p}/commits?limit=100`)).items) await json(`${p}/commits/${commit.sha}`);
  }
  return bodies.join('\n');
}

async function localViewer(machine: Box): Promise<string> {
  const viewer = await startViewerProcess({ home: machine.home, cwd: machine.repo });
  try {
    const url = new URL(viewer.url);
    const traded = await get(viewer.origin, `/?token=${url.searchParams.get('token')}`);
    const cookie = String(traded.headers['set-cookie']).split(';')[0]!;
    const pages = await crawl((path) => get(viewer.origin, path, { cookie }), '');
    assert.ok(pages.includes(SESSION_ID), 'the local viewer shows the session');
    return pages;
  } finally {
    await viewer.stop();
  }
}

async function teamView(service: ServiceHandle, token: string): Promise<string> {
  const client = browserlessClient(service.url);
  assert.is((await client.signIn(token)).status, 303);
  const fetchPath = async (path: string) => {
    const response = await client.get(path);
    return { status: response.status, body: await response.text() };
  };
  // The team view takes uploads in once they pause: wait until it shows the session.
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 200))) {
    const sessions = await fetchPath('/ui/api/p/acme/web/sessions');
    if (sessions.status === 200 && sessions.body.includes(SESSION_ID)) break;
  }
  const pages = await crawl(fetchPath, '/ui');
  assert.ok(pages.includes(SESSION_ID), 'the team view shows the session');
  return pages;
}

for (const backend of ['sqlite', 'postgres'] as const) {
  test(`${backend}: after hooks, commit, push and a teammate's pull, no secret is anywhere and every benign string is intact`, async () => {
    const service = await spawnService({ backend, signInsPerMinute: 1000 });
    await service.createProject('acme', 'web');
    const token = await service.createToken({ org: 'acme', project: 'web', name: 'team' });
    const fixture = secretTranscript();

    // Machine A: the agent edits a file and stops; its transcript holds every format.
    const a = box(join(tempDir('redact-e2e-repo-'), 'web'));
    execFileSync('git', ['init', '-q', '-b', 'main', a.repo]);
    git(a.repo, a.home, 'commit', '-q', '--allow-empty', '-m', 'initial');
    await ok(a.run(['init', '--agents', 'claude-code']), 'init');
    await ok(a.run(['remote', 'add', 'origin', `${service.url}/acme/web`, '--token', token]), 'remote add');
    const transcriptPath = join(tempDir('redact-e2e-agent-'), `${SESSION_ID}.jsonl`);
    writeFileSync(transcriptPath, fixture.text);
    const file = join(a.repo, 'deploy.sh');
    writeFileSync(file, '#!/bin/sh\nset -eu\n./configure --env production\n');
    await hook(a, 'PostToolUse', {
      session_id: SESSION_ID,
      transcript_path: transcriptPath,
      cwd: a.repo,
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_input: { file_path: file, content: '#!/bin/sh\nset -eu\n./configure --env production\n' },
      tool_response: { type: 'create', filePath: file },
    });
    await hook(a, 'Stop', {
      session_id: SESSION_ID,
      transcript_path: transcriptPath,
      cwd: a.repo,
      hook_event_name: 'Stop',
      stop_hook_active: false,
    });
    git(a.repo, a.home, 'add', '-A');
    git(a.repo, a.home, 'commit', '-q', '-m', 'Add the deploy script');
    const head = git(a.repo, a.home, 'rev-parse', 'HEAD');
    await ok(a.run(['push', '--full']), 'push');
    assert.is(readFileSync(transcriptPath, 'utf8'), fixture.text, "the agent's transcript is untouched");

    // Machine B: a teammate's clone, with the notes, pulls.
    const b = box(join(tempDir('redact-e2e-clone-'), 'web'));
    execFileSync('git', ['clone', '-q', a.repo, b.repo], { env: gitEnv(b.home) });
    git(b.repo, b.home, 'fetch', '-q', 'origin', 'refs/notes/tracer:refs/notes/tracer');
    await ok(b.run(['init', '--agents', 'claude-code']), 'init (teammate)');
    await ok(b.run(['remote', 'add', 'origin', `${service.url}/acme/web`, '--token', token]), 'remote add (teammate)');
    await ok(b.run(['pull']), 'pull');

    const stores = { a: everything(a.home), b: everything(b.home) };
    assertNoSecret("machine A's TRACER_HOME", stores.a, fixture);
    assertNoSecret("machine B's TRACER_HOME", stores.b, fixture);
    const onService = await serviceContents(service);
    assertNoSecret(`the ${backend} service (rows and blobs)`, onService, fixture);
    for (const benign of fixture.benign) {
      assert.ok(stores.a.includes(benign), `A keeps: ${benign.slice(0, 50)}`);
      assert.ok(stores.b.includes(benign), `B has: ${benign.slice(0, 50)}`);
      assert.ok(onService.includes(benign), `the service has: ${benign.slice(0, 50)}`);
    }
    for (const repo of [a.repo, b.repo]) {
      const notes = git(repo, b.home, 'notes', '--ref=tracer', 'show', head);
      assert.match(notes, /claude-code/);
      assertNoSecret('the git note', notes, fixture);
    }
    assertNoSecret('the team view', await teamView(service, token), fixture);
    assertNoSecret("A's local viewer", await localViewer(a), fixture);
    assertNoSecret("B's local viewer", await localViewer(b), fixture);
    const comment = await ok(b.run(['stats', `${git(b.repo, b.home, 'rev-parse', 'HEAD~1')}..HEAD`, '--markdown']), 'stats');
    assert.match(comment.stdout, /deploy\.sh|AI/);
    assertNoSecret('the tracer ci comment', comment.stdout, fixture);
  });
}

test.run();
