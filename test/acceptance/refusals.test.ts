import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addConversation, addLedger, addTrace, machine, readConversation, syncState, transcript } from '../helpers/sync-fixtures.js';

/** What push, pull and doctor refuse, with which exit code and which sentence (README "Exit codes"). */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

let service: ServiceHandle;
let url: string;
let token: string;

test.before(async () => {
  service = await startService({ blobMaxBytes: 1024 * 1024 });
  await service.createProject('acme', 'web');
  await service.createProject('acme', 'api');
  await service.createProject('other', 'web');
  url = `${service.url}/acme/web`;
  token = await service.createToken({ org: 'acme', project: 'web', name: 'web-token' });
});

test('a token of another org: org_slug_mismatch, exit 6, both slugs named, nothing sent', async () => {
  const foreign = await service.createToken({ org: 'other', project: 'web' });
  const a = await machine({ remoteUrl: url, token });
  assert.is((await a.run(['remote', 'set-token', 'origin', '--token', foreign])).code, 0);
  const trace = addTrace(a);
  addLedger(a, [trace.id]);
  const refused = await a.run(['push']);
  assert.is(refused.code, 6);
  assert.match(refused.stderr, '(org_slug_mismatch)');
  assert.match(refused.stderr, '"other"');
  assert.match(refused.stderr, '"acme"');
  assert.is(syncState(a), undefined);
  const doctor = await a.run(['doctor']);
  assert.is(doctor.code, 6);
  assert.match(doctor.stdout, 'FAIL  origin whoami');
});

test('a project token for another project: project_scope_mismatch, exit 6, both slugs named', async () => {
  const apiToken = await service.createToken({ org: 'acme', project: 'api' });
  const a = await machine({ remoteUrl: url, token });
  await a.run(['remote', 'set-token', 'origin', '--token', apiToken]);
  addTrace(a);
  const refused = await a.run(['push', '--json']);
  assert.is(refused.code, 6);
  assert.match(refused.stderr, '(project_scope_mismatch)');
  assert.match(refused.stderr, 'acme/api');
  assert.match(refused.stderr, 'acme/web');
  const result = JSON.parse(refused.stdout);
  assert.is(result.ok, false);
  assert.is(result.error.code, 'project_scope_mismatch');
});

test('an org token covers every project of its org', async () => {
  const orgToken = await service.createToken({ org: 'acme' });
  const a = await machine({ remoteUrl: url, token });
  await a.run(['remote', 'set-token', 'origin', '--token', orgToken]);
  const trace = addTrace(a);
  addLedger(a, [trace.id]);
  const pushed = await a.run(['push']);
  assert.is(pushed.code, 0, pushed.stderr);
});

test('a remote without an auth block fails at the server and says how to bind a token (exit 4)', async () => {
  const a = await machine({ remoteUrl: url });
  addTrace(a);
  const refused = await a.run(['push']);
  assert.is(refused.code, 4);
  assert.match(refused.stderr, 'tracer remote set-token origin --token');
  const pull = await a.run(['pull']);
  assert.is(pull.code, 4);
  assert.match(pull.stderr, 'tracer remote set-token origin --token');
});

test('TRACER_TOKEN is never used by push', async () => {
  const a = await machine({ remoteUrl: url });
  const refused = await a.run(['push'], { env: { TRACER_TOKEN: token } });
  assert.is(refused.code, 4);
});

test('an unregistered project is a scope failure that says to run project create', async () => {
  const a = await machine({ remoteUrl: `${service.url}/acme/nowhere`, token: await service.createToken({ org: 'acme' }) });
  const trace = addTrace(a);
  addLedger(a, [trace.id]);
  const refused = await a.run(['push']);
  assert.is(refused.code, 6);
  assert.match(refused.stderr, 'tracer project create');
});

test('an unreachable server is a network failure (exit 5); doctor says the server does not answer', async () => {
  const a = await machine({ remoteUrl: 'http://127.0.0.1:9/acme/web', token });
  const refused = await a.run(['push'], { env: { TRACER_HTTP_ATTEMPTS: '2', TRACER_HTTP_BACKOFF_MS: '1' } });
  assert.is(refused.code, 5);
  assert.match(refused.stderr, '(network_error)');
  const doctor = await a.run(['doctor'], { env: { TRACER_HTTP_ATTEMPTS: '1' } });
  assert.is(doctor.code, 5);
  assert.match(doctor.stdout, 'ok    origin url:');
  assert.match(doctor.stdout, 'FAIL  origin server:');
});

test('a transcript over BLOB_MAX_BYTES is reported and left unsynced; the others go; exit 7; a later push retries it', async () => {
  const a = await machine({ remoteUrl: url, token });
  const trace = addTrace(a);
  addLedger(a, [trace.id]);
  const big = addConversation(a, 'too-big', transcript(2 * 1024 * 1024, 'too-big'));
  const fine = addConversation(a, 'fine', transcript(512 * 1024, 'fine'));
  const pushed = await a.run(['push', '--json']);
  assert.is(pushed.code, 7, pushed.stderr);
  assert.match(pushed.stderr, '(blob_too_large)');
  const result = JSON.parse(pushed.stdout);
  const conversations = result.push.families.find((f: any) => f.family === 'conversations');
  assert.is(conversations.sent, 1);
  assert.is(conversations.failed, 1);
  const keys = syncState(a).remotes.origin.synced.conversation_keys;
  assert.ok(keys.includes(`fine:${fine.sha}`));
  assert.not.ok(keys.includes(`too-big:${big.sha}`));
  const log = readFileSync(join(a.dir, 'push-errors.log'), 'utf8');
  assert.match(log, 'blob_too_large');
  assert.ok(readConversation(a, 'too-big').length === 2 * 1024 * 1024, 'the transcript is still there');
  const status = JSON.parse((await a.run(['status', '--json'])).stdout);
  assert.is(status.remotes[0].families.conversations.unpushed, 1);
  const again = await a.run(['push', '--json']);
  assert.is(again.code, 7);
  assert.is(JSON.parse(again.stdout).push.families.find((f: any) => f.family === 'conversations').failed, 1);
});

test('doctor passes on a healthy remote, one line per check', async () => {
  const a = await machine({ remoteUrl: url, token });
  const doctor = await a.run(['doctor']);
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, /ok {4}origin url: .* parses/);
  assert.match(doctor.stdout, 'ok    origin token: bound (config.json)');
  assert.match(doctor.stdout, 'ok    origin server:');
  assert.match(doctor.stdout, 'ok    origin whoami: token "web-token" (project scope, acme/web) matches acme/web');
  const json = JSON.parse((await a.run(['doctor', '--json'])).stdout);
  assert.is(json.ok, true);
  assert.is(json.checks.length, 4);
});

test('an interrupted push resumes: what was sent stays in the manifest, the next run sends only the rest', async () => {
  const broken = await startService({ disableRoutes: ['ledgers'] });
  await broken.createProject('acme', 'web');
  const brokenToken = await broken.createToken({ org: 'acme', project: 'web' });
  const a = await machine({ remoteUrl: `${broken.url}/acme/web`, token: brokenToken });
  const traces = [addTrace(a), addTrace(a)];
  addLedger(
    a,
    traces.map((trace) => trace.id),
  );
  const failed = await a.run(['push']);
  assert.is(failed.code, 1);
  assert.match(failed.stderr, '(route_unsupported)');
  assert.is(syncState(a).remotes.origin.synced.trace_ids.length, 2, 'the traces sent before the failure are recorded');
  // The same server, upgraded in place: same URL, same data, the ledgers route now there.
  await broken.stop();
  await startService({ dataDir: broken.dataDir, port: Number(new URL(broken.url).port) });
  const resumed = JSON.parse((await a.run(['push', '--json'])).stdout).push;
  assert.is(resumed.families.find((f: any) => f.family === 'traces').sent, 0);
  assert.is(resumed.families.find((f: any) => f.family === 'ledgers').sent, 1);
});

test.run();
