import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixturePath, hook, payload } from '../capture/hook-fixtures.js';
import { git, gitWith, tempDir } from '../helpers/cli.js';
import { spawnService, type ServiceHandle } from '../helpers/service.js';
import { addTrace, machine } from '../helpers/sync-fixtures.js';
import { CLAUDE, CODEX, CURSOR, recordedStore, secondAfter } from '../viewer/store.js';

/**
 * A team on a real service: two machines record agent sessions through the real
 * hooks and commits, then push to acme/app, each with its own project token
 * ("alice" and "bob", the team view's persons). Alice's Claude transcript ends
 * with hostile text (test/viewer/store.ts). Another org's project holds a
 * session nobody of acme may see.
 */
export const BOB_SESSION = '019a2f4e-0000-7b90-a3e5-b0b0b0b0b0b0';
export { CLAUDE, CODEX, CURSOR };

export interface Team {
  service: ServiceHandle;
  tokens: { alice: string; bob: string; org: string; web: string; other: string };
  aliceCommits: { greet: string; release: string };
  bobCommit: string;
  secretSession: string;
}

export async function teamOnService(backend: 'sqlite' | 'postgres'): Promise<Team> {
  // `tracer serve` itself, logging at info so a test can read that no token reaches the log.
  const service = await spawnService({ backend, logLevel: 'info', signInsPerMinute: 1000 });
  await service.createProject('acme', 'app');
  await service.createProject('acme', 'web');
  await service.createProject('other', 'secret');
  const tokens = {
    alice: await service.createToken({ org: 'acme', project: 'app', name: 'alice' }),
    bob: await service.createToken({ org: 'acme', project: 'app', name: 'bob' }),
    org: await service.createToken({ org: 'acme', name: 'lead' }),
    web: await service.createToken({ org: 'acme', project: 'web', name: 'webdev' }),
    other: await service.createToken({ org: 'other', project: 'secret', name: 'mallory' }),
  };

  const alice = await recordedStore();
  await push(alice, `${service.url}/acme/app`, tokens.alice);

  // Bob: a clone of his own, a Codex session through the hooks, a commit and its link.
  const bobHome = join(tempDir('team-bob-'), 'home');
  const bobRepo = join(tempDir('team-bob-repo-'), 'repo');
  git(alice.repo, 'clone', '-q', alice.repo, bobRepo);
  const transcript = join(tempDir('team-bob-transcript-'), 'codex.jsonl');
  copyFileSync(fixturePath('codex', 'transcript.jsonl'), transcript);
  const send = (event: string) =>
    hook('codex', event, payload('codex', event, { repo: bobRepo, transcript }).replaceAll(CODEX, BOB_SESSION), {
      cwd: bobRepo,
      home: bobHome,
    });
  // The session writes what the recorded Codex payload says; Bob starts from a tree without those files.
  git(bobRepo, 'rm', '-q', 'CHANGELOG.md', 'pkg/version.txt');
  // Bob commits after Alice, and each commit a second after the one before: the views list commits newest first.
  const over = secondAfter(bobRepo, 'HEAD');
  gitWith({ GIT_AUTHOR_DATE: over, GIT_COMMITTER_DATE: over }, bobRepo, 'commit', '-q', '-m', 'bob: start the release over');
  mkdirSync(join(bobRepo, 'pkg'), { recursive: true });
  copyFileSync(join(alice.repo, 'CHANGELOG.md'), join(bobRepo, 'CHANGELOG.md'));
  copyFileSync(join(alice.repo, 'pkg/version.txt'), join(bobRepo, 'pkg/version.txt'));
  await send('PostToolUse');
  await send('Stop');
  git(bobRepo, 'add', '-A');
  const again = secondAfter(bobRepo, 'HEAD');
  gitWith({ GIT_AUTHOR_DATE: again, GIT_COMMITTER_DATE: again }, bobRepo, 'commit', '-q', '-m', 'bob: release again');
  const bob = {
    repo: bobRepo,
    home: bobHome,
    run: (args: readonly string[]) => alice.run(args, { cwd: bobRepo, home: bobHome }),
  };
  const linked = await bob.run(['commit-link']);
  if (linked.code !== 0) throw new Error(`bob's commit-link failed: ${linked.stderr}`);
  await push(bob, `${service.url}/acme/app`, tokens.bob);

  // Another org: one session nobody of acme may see.
  const outsider = await machine({ remoteUrl: `${service.url}/other/secret`, token: tokens.other });
  const secretSession = 'secret-session-of-another-org';
  addTrace(outsider, { conversation_id: secretSession, agent: 'claude-code', files: [{ path: 'secret.txt', ranges: [] }] });
  const pushed = await outsider.main(['push', '--full']);
  if (pushed.code !== 0) throw new Error(`the outsider's push failed: ${pushed.stderr}`);

  return {
    service,
    tokens,
    aliceCommits: { greet: alice.greetCommit, release: alice.releaseCommit },
    bobCommit: git(bobRepo, 'rev-parse', 'HEAD'),
    secretSession,
  };
}

async function push(
  box: { run: (args: readonly string[]) => Promise<{ code: number; stderr: string; stdout: string }> },
  url: string,
  token: string,
): Promise<void> {
  const added = await box.run(['remote', 'add', 'origin', url, '--token', token]);
  if (added.code !== 0) throw new Error(`remote add failed: ${added.stderr}`);
  const pushed = await box.run(['push', '--full']);
  if (pushed.code !== 0) throw new Error(`push failed: ${pushed.stderr}${pushed.stdout}`);
}

/** A client of the team view that keeps its cookie, as a browser does. */
export function browserlessClient(base: string) {
  let cookie: string | undefined;
  return {
    get cookie() {
      return cookie;
    },
    async signIn(token: string): Promise<Response> {
      const response = await fetch(`${base}/ui/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }).toString(),
        redirect: 'manual',
      });
      const set = response.headers.get('set-cookie');
      if (set) cookie = set.split(';')[0];
      return response;
    },
    get(path: string, init: RequestInit = {}): Promise<Response> {
      return fetch(`${base}${path}`, {
        ...init,
        redirect: 'manual',
        headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string> | undefined) },
      });
    },
  };
}
