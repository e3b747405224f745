import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, type RunResult } from '../helpers/cli.js';
import { spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addConversation, addLedger, addTrace, appendRows, machine, transcript, type Machine } from '../helpers/sync-fixtures.js';
import { parseResponses, rawSocket, SOAK } from './hostile-support.js';

/**
 * Issue 6, secrets: config.json and remotes.json are 0600 after every command that
 * writes them (even when they were 0644 before); no token, legacy token, env token
 * or admin secret appears in any command's output (errors, `remote show`, --json),
 * in push-errors.log, in hook-errors.log, or in the logs of a `tracer serve` running
 * at trace level; a token pasted into a URL's userinfo is refused without echo.
 */

let service: ServiceHandle;
let m: Machine;
const secrets: Record<string, string> = {};
/** Every command run, with what it printed: checked for secrets at the end (and as we go). */
const transcriptLog: Array<{ args: string[]; result: RunResult }> = [];

test.before(async () => {
  service = await spawnService({ logLevel: 'trace' });
  await service.createProject('acme', 'web');
  secrets.token = await service.createToken({ org: 'acme', project: 'web', name: 'laptop' });
  secrets.rotated = await service.createToken({ org: 'acme', project: 'web', name: 'laptop-2' });
  secrets.foreign = await service.createToken({ org: 'acme', name: 'acme-org-wide' });
  await service.createProject('globex', 'shop');
  secrets.otherOrg = await service.createToken({ org: 'globex', project: 'shop', name: 'globex' });
  secrets.unknown = `trc_${randomBytes(32).toString('base64url')}`;
  secrets.legacy = `legacy-${randomBytes(16).toString('hex')}`;
  secrets.legacy2 = `${secrets.legacy}-2`;
  secrets.env = await service.createToken({ org: 'acme', project: 'web', name: 'from-env' });
  secrets.pasted = `pasted${randomBytes(12).toString('hex')}`;
  secrets.admin = service.adminSecret!;
  m = await machine();
});
test.after(async () => {
  await stopAllServices();
  cleanup();
});

const url = () => `${service.url}/acme/web`;
const configPath = () => join(m.home, 'config.json');
const remotesPath = () => join(m.dir, 'remotes.json');
const modeOf = (path: string) => statSync(path).mode & 0o777;

type PrivateFile = 'config' | 'remotes';
const privateFiles = (): Record<PrivateFile, string> => ({ config: configPath(), remotes: remotesPath() });
/** Identity of a file's current version: an atomic write makes a new inode, an in-place one new bytes. */
const version = (path: string) => (existsSync(path) ? `${statSync(path).ino}:${readFileSync(path, 'utf8')}` : undefined);

async function run(
  args: string[],
  options: { env?: Record<string, string>; input?: string; mayFail?: boolean; writes?: PrivateFile[] } = {},
): Promise<RunResult> {
  const before = Object.fromEntries(Object.entries(privateFiles()).map(([name, path]) => [name, version(path)]));
  const result = await m.main(args, { env: { SPARE_TOKEN: secrets.env!, ...options.env }, input: options.input });
  const where = `tracer ${args.join(' ')}`;
  if (!options.mayFail) assert.is(result.code, 0, `${where} → ${result.code}\n${result.stdout}\n${result.stderr}`);
  transcriptLog.push({ args, result });
  assertNoSecret(where, `${result.stdout}\n${result.stderr}`);
  for (const [name, path] of Object.entries(privateFiles()) as Array<[PrivateFile, string]>) {
    const changed = version(path) !== before[name];
    if (options.writes?.includes(name)) assert.ok(changed, `${where} was expected to write ${path}`);
    // Written by this command (created or replaced): private, whatever mode the old file had.
    if (changed && existsSync(path)) assert.is(modeOf(path).toString(8), '600', `${path} after ${where}`);
  }
  return result;
}

/** No secret in `text`, in any of the forms a log might hold it (plain, or a byte list from a serialized Buffer). */
function assertNoSecret(where: string, text: string, only?: string[]): void {
  for (const [name, secret] of Object.entries(secrets)) {
    if (only && !only.includes(name)) continue;
    assert.not.ok(text.includes(secret), `${where} printed the ${name} secret:\n${text.slice(0, 2000)}`);
    assert.not.ok(text.includes(secret.slice(4, 24)), `${where} printed part of the ${name} secret`);
    const bytes = [...Buffer.from(secret.slice(0, 12))].join(',');
    assert.not.ok(text.includes(bytes), `${where} printed the ${name} secret as bytes`);
  }
}

/** Both files start out world-readable, as an old tool or a careless copy would leave them. */
function loosen(): void {
  for (const path of [configPath(), remotesPath()]) {
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, path.endsWith('config.json') ? '{}\n' : '{"remotes": {}}\n');
    }
    chmodSync(path, 0o644);
  }
}

test('every command that writes config.json or remotes.json leaves them 0600, and prints no secret', async () => {
  loosen();
  await run(['init']);
  loosen();
  await run(['remote', 'add', 'origin', url(), '--token', secrets.token!], { writes: ['config', 'remotes'] });
  assert.not.ok(readFileSync(remotesPath(), 'utf8').includes(secrets.token!), 'remotes.json holds the raw token');
  assert.ok(readFileSync(configPath(), 'utf8').includes(secrets.token!), 'config.json holds the token (spec §5.1)');
  loosen();
  await run(['remote', 'set-url', 'origin', `${service.url}/gw/acme/web`], { writes: ['remotes'] });
  loosen();
  await run(['remote', 'set-url', 'origin', url()], { writes: ['remotes'] });
  loosen();
  await run(['remote', 'set-token', 'origin', '--token', secrets.rotated!], { writes: ['config'] });
  loosen();
  await run(['remote', 'rename', 'origin', 'upstream'], { writes: ['config', 'remotes'] });
  loosen();
  await run(['remote', 'add', 'spare', url(), '--token-env', 'SPARE_TOKEN'], { writes: ['remotes'] });
  loosen();
  await run(['remote', 'remove', 'spare'], { writes: ['remotes'] });
  loosen();
  await run(['config', 'set', '--global', 'telemetry.enabled', 'false'], { writes: ['config'] });
  loosen();
  await run(['set', 'global', 'capture_detached_edits', 'true'], { writes: ['config'] });
  loosen();
  await run(['set', 'globaluser', secrets.legacy!], { writes: ['config'] });
  loosen();
  await run(['config', 'set', '--global', 'auth-token', `${secrets.legacy}-2`], { writes: ['config'] });
  loosen();
  await run(['config', 'set', 'remote.default', 'upstream']);

  // Data to move, a record the service refuses (so push-errors.log gets lines), a large transcript.
  const ids = [addTrace(m, { note: 'secret-free' }).id, addTrace(m).id];
  addLedger(m, ids);
  addConversation(m, 'conv-1', transcript(300 * 1024, 'secrets'));
  appendRows(join(m.dir, 'traces.jsonl'), [{ id: 'not-a-content-id', note: 'no ts' }]);
  loosen();
  await run(['push', '--full']);
  loosen();
  await run(['push', '--json']);
  loosen();
  await run(['pull']);
  loosen();
  await run(['pull', '--json']);
  loosen();
  await run(['sync', '--json']);
  await run(['status', '--json']);
  await run(['doctor', '--json']);
  loosen();
  await run(['reset']);
});

test('remote show, remote list, config list and --json outputs mask every token', async () => {
  await run(['remote', 'add', 'spare', url(), '--token-env', 'SPARE_TOKEN']);
  for (const args of [
    ['remote', 'show', 'upstream'],
    ['remote', 'show', 'upstream', '--json'],
    ['remote', 'show', 'spare', '--json'],
    ['remote', 'list', '--json'],
    ['remote', 'list'],
    ['config', 'list', '--global', '--json'],
    ['config', 'list', '--global'],
    ['config', 'get', '--global', 'auth-token'],
    ['status'],
    ['doctor'],
  ]) {
    await run(args);
  }
});

test('failures name the problem, never the token: unknown token, wrong org, wrong project, no server', async () => {
  await run(['remote', 'set-token', 'upstream', '--token', secrets.unknown!]);
  for (const args of [['push', '--remote', 'upstream'], ['pull', '--remote', 'upstream'], ['sync', '--remote', 'upstream'], ['doctor']]) {
    const result = await run(args, { mayFail: true });
    assert.is.not(result.code, 0, `tracer ${args.join(' ')} with an unknown token succeeded`);
  }
  await run(['remote', 'set-token', 'upstream', '--token', secrets.otherOrg!]);
  const mismatch = await run(['push', '--remote', 'upstream'], { mayFail: true });
  assert.match(mismatch.stderr, 'org_slug_mismatch');
  await run(['remote', 'set-token', 'upstream', '--token', secrets.foreign!]);
  const wideButFine = await run(['push', '--remote', 'upstream', '--dry-run'], { mayFail: true });
  assert.is(wideButFine.code, 0, wideButFine.stderr);
  await run(['remote', 'add', 'dead', 'http://127.0.0.1:9/acme/web', '--token', secrets.foreign!], { mayFail: true });
  await run(['push', '--remote', 'dead'], { mayFail: true });
  await run(['remote', 'set-token', 'upstream', '--token', secrets.token!]);
});

test('a token pasted into a URL is refused without echo, on every command that takes a URL', async () => {
  const host = new URL(service.url).host;
  const pasted = [
    `http://user:${secrets.pasted!}@${host}/acme/web`,
    `http://${secrets.pasted!}@${host}/acme/web`,
    `http://${secrets.pasted!}:x-oauth-basic@${host}/gw/acme/web`,
    `http://${host}/acme/web?token=${secrets.pasted!}`,
    `http://${host}/acme/web#${secrets.pasted!}`,
    `http://a@b:${secrets.pasted!}@${host}/acme/web`,
  ];
  const commands = (bad: string) => [
    ['remote', 'add', 'pasted', bad, '--token', secrets.token!],
    ['remote', 'set-url', 'upstream', bad],
    ['project', 'create', bad],
    ['token', 'create', bad, '--name', 'x'],
  ];
  // Every command with the first form, then each other form on one command in turn (all pairs in soak mode).
  const cases = SOAK
    ? pasted.flatMap((bad) => commands(bad))
    : [...commands(pasted[0]!), ...pasted.slice(1).map((bad, i) => commands(bad)[i % 4]!)];
  for (const args of cases) {
    const result = await run(args, { mayFail: true, env: { TRACER_ADMIN_SECRET: secrets.admin! } });
    assert.is.not(result.code, 0, `tracer ${args.join(' ')} accepted a URL with a secret`);
    assert.match(result.stderr, /invalid_remote_url/);
  }
  assert.not.ok(readFileSync(remotesPath(), 'utf8').includes(secrets.pasted!));
});

test('push-errors.log and hook-errors.log hold no secret', async () => {
  const pushLog = join(m.dir, 'push-errors.log');
  assert.ok(existsSync(pushLog), 'the refused record should have been logged');
  assertNoSecret('push-errors.log', readFileSync(pushLog, 'utf8'));
  // A hook fed garbage logs its failure (and exits 0 for the agent).
  await run(['hook', 'claude-code', 'PostToolUse'], { input: `{"not json ${secrets.token!}`, mayFail: true });
  await run(['hook', 'claude-code', 'PostToolUse'], { input: '{"hook_event_name": 42}', mayFail: true });
  const hookLog = join(m.dir, 'hook-errors.log');
  if (existsSync(hookLog))
    assertNoSecret('hook-errors.log', readFileSync(hookLog, 'utf8').replaceAll(secrets.token!, 'TOKEN-THE-AGENT-PASTED'));
});

test("the service's logs at trace level never hold a token, the admin secret or an Authorization header", async () => {
  // Malformed requests carrying a token: the parser's error once logged the raw bytes received.
  const replies = parseResponses(
    await rawSocket(
      service.url,
      `GET /api/v1/sync/traces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secrets.token!}\r\nX-Bad: a\u0000b\r\n\r\n`,
      { halfClose: false },
    ),
  );
  assert.is(replies[0]?.status, 400);
  await rawSocket(
    service.url,
    `POST /api/v1/admin/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secrets.admin!}\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"org_slug"`,
    { halfClose: true },
  );
  await fetch(`${service.url}/api/v1/sync/traces`, {
    headers: { authorization: `Bearer ${secrets.otherOrg!}`, 'x-tracer-org': 'acme', 'x-tracer-project': 'web' },
  });
  await fetch(`${service.url}/api/v1/sync/traces`, {
    headers: { authorization: `Bearer ${secrets.unknown!}`, 'x-tracer-org': 'acme', 'x-tracer-project': 'web' },
  });
  await service.stop();
  const { stdout, stderr } = service.output();
  const logs = `${stdout}\n${stderr}`;
  assert.ok(logs.split('\n').length > 50, 'the service logged at trace level');
  assert.ok(/"reqId"/.test(logs), 'request log lines carry the request id');
  assertNoSecret('tracer serve logs', logs);
  assert.not.ok(/authorization/i.test(logs.replace(/"\[redacted\]"/g, '')), 'an Authorization header was logged');
  for (const { args, result } of transcriptLog) assertNoSecret(`tracer ${args.join(' ')}`, `${result.stdout}\n${result.stderr}`);
});

test.run();
