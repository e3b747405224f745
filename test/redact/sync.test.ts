// Issue 29 items 6 and 7, on SQLite and PostgreSQL: data captured before
// redaction is redacted on its way out (the stored row stays, sent-as.jsonl
// says what it went out as), so the next push is a no-op and a pull brings no
// second copy back, on this machine or a teammate's; `tracer redact --store`
// cleans the store itself. The service is a second gate: a summary, an inline
// transcript or a blob that still holds a secret is refused (422
// secret_detected) and nothing of it stored, unless it runs with --allow-secrets.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addConversation, addSummary, machine, readRows, type Machine } from '../helpers/sync-fixtures.js';
import { encodings } from './corpus-figures.js';
import { serviceContents } from './service-dump.js';

test.after(async () => {
  await stopAllServices();
  cleanup();
});

const GITHUB = `ghp_${'Q1w2E3r4T5'.repeat(3)}y6U7i8`;
const AWS = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY1a2B3c4D5e';
const PASSWORD = 'Sup3rS3cret-Pa55';

function transcriptWith(lines: number, secretLine: string): Buffer {
  const out: string[] = [];
  for (let n = 0; n < lines; n += 1)
    out.push(JSON.stringify({ type: 'user', n, message: { role: 'user', content: `step ${n}: ${'lorem ipsum dolor '.repeat(6)}` } }));
  out.splice(Math.floor(lines / 2), 0, JSON.stringify({ type: 'user', message: { role: 'user', content: secretLine } }));
  return Buffer.from(`${out.join('\n')}\n`);
}

function storeText(m: Machine): string {
  const parts = ['session-summaries.jsonl', 'conversations.jsonl'].map((file) =>
    existsSync(join(m.dir, file)) ? readFileSync(join(m.dir, file), 'latin1') : '',
  );
  const cache = join(m.dir, 'conversations');
  for (const row of readRows(join(m.dir, 'conversations.jsonl'))) {
    const sha = String(row.content_sha256);
    const path = join(cache, sha.slice(0, 2), sha);
    if (existsSync(path)) parts.push(readFileSync(path, 'latin1'));
  }
  return parts.join('\n');
}

function holdsSecret(text: string): boolean {
  return [GITHUB, AWS, PASSWORD].some((secret) => encodings(secret).some((form) => text.includes(form)));
}

async function pushJson(m: Machine): Promise<any> {
  const result = await m.run(['push', '--json']);
  assert.is(result.code, 0, `push: ${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout).push;
}

async function raw(
  service: ServiceHandle,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-tracer-org': 'acme',
      'x-tracer-project': 'web',
      ...(Buffer.isBuffer(body)
        ? { 'content-type': 'application/octet-stream' }
        : body === undefined
          ? {}
          : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? (JSON.parse(text) as any) : undefined };
}

for (const backend of ['sqlite', 'postgres'] as const) {
  test(`${backend}: data captured before redaction goes out redacted, once; pulls here and on a teammate's machine bring no second copy`, async () => {
    const service = await startService({ backend });
    await service.createProject('acme', 'web');
    const token = await service.createToken({ org: 'acme', project: 'web', name: 'laptop' });
    const remoteUrl = `${service.url}/acme/web`;
    const m1 = await machine({ remoteUrl, token });
    // As an older tracer left them: no `redacted` mark, secrets as they were typed.
    addSummary(m1, { conversation_url: 'claude-code://session/c-small', summary: `Configured the deploy with ${GITHUB}.` });
    addConversation(m1, 'c-small', transcriptWith(20, `export AWS_SECRET_ACCESS_KEY=${AWS}`));
    addConversation(m1, 'c-large', transcriptWith(3000, `DB_PASSWORD=${PASSWORD}`));
    assert.ok(
      readRows(join(m1.dir, 'conversations.jsonl')).some((row) => Number(row.size) >= 256 * 1024),
      'one goes through the blob route',
    );

    const first = await pushJson(m1);
    const family = (name: string) => first.families.find((one: any) => one.family === name);
    assert.is(family('summaries').sent, 1);
    assert.is(family('conversations').sent, 2);
    assert.is(family('conversations').blobs_uploaded, 1);
    const onService = await serviceContents(service);
    assert.not.ok(holdsSecret(onService), 'no secret on the service');
    assert.ok(onService.includes('[REDACTED:github-token:'), 'the redacted copies are there');
    assert.ok(holdsSecret(storeText(m1)), 'the stored rows stay as they were (tracer redact --store cleans them)');
    assert.is(readRows(join(m1.dir, 'sent-as.jsonl')).length, 3);

    const again = await pushJson(m1);
    assert.is(again.totals.sent, 0, 'the next push is a no-op');
    const pulled = JSON.parse((await m1.run(['pull', '--json'])).stdout).pull;
    assert.is(pulled.totals.inserted, 0, "the copies are this machine's rows, not new ones");
    assert.is(readRows(join(m1.dir, 'conversations.jsonl')).length, 2);
    assert.is(readRows(join(m1.dir, 'session-summaries.jsonl')).length, 1);

    const m2 = await machine({ remoteUrl, token });
    const theirs = JSON.parse((await m2.run(['pull', '--json'])).stdout).pull;
    assert.is(
      theirs.totals.inserted,
      3 +
        theirs.families
          .filter((one: any) => !['summaries', 'conversations'].includes(one.family))
          .reduce((sum: number, one: any) => sum + one.inserted, 0),
    );
    assert.not.ok(holdsSecret(storeText(m2)), "no secret on the teammate's machine");
    assert.is(readRows(join(m2.dir, 'conversations.jsonl')).length, 2);
    assert.is(JSON.parse((await m2.run(['pull', '--json'])).stdout).pull.totals.inserted, 0);

    // The store itself, cleaned: nothing left here, and nothing new to send or to pull.
    const cleaned = await m1.run(['redact', '--store']);
    assert.is(cleaned.code, 0, cleaned.stderr);
    assert.match(cleaned.stdout, /summaries: 1 redacted/);
    assert.match(cleaned.stdout, /conversations: 2 redacted/);
    assert.not.ok(holdsSecret(storeText(m1)));
    assert.not.ok(holdsSecret(readFileSync(join(m1.dir, 'conversations', '_index.json'), 'utf8')));
    const afterStore = await pushJson(m1);
    assert.is(afterStore.totals.inserted, 0, 'the service held these copies already');
    assert.is(JSON.parse((await m1.run(['pull', '--json'])).stdout).pull.totals.inserted, 0);
    assert.is(readRows(join(m1.dir, 'conversations.jsonl')).length, 2);
  });

  test(`${backend}: the service refuses a summary, an inline transcript and a blob that still hold a secret (422 secret_detected), storing nothing`, async () => {
    const service = await startService({ backend });
    await service.createProject('acme', 'web');
    const token = await service.createToken({ org: 'acme', project: 'web', name: 'old-client' });
    const summary = withContentId({ ts: '2024-05-01T12:00:00Z', conversation_url: 'x://session/1', summary: `token ${GITHUB}` }, 'id');
    const refused = await raw(service, token, 'POST', '/api/v1/sync/summaries', {
      items: [withContentId({ ts: '2024-05-01T12:00:00Z', conversation_url: 'x://session/0', summary: 'fine' }, 'id'), summary],
    });
    assert.is(refused.status, 422);
    assert.is(refused.json.code, 'secret_detected');
    assert.equal(
      refused.json.errors.map((error: any) => [error.index, error.field]),
      [[1, 'summary']],
    );
    assert.match(refused.json.detail, /github-token/);
    assert.not.ok(refused.text.includes(GITHUB), 'the answer never shows the secret');
    // The wire contract leaves a summary's members free: one that is not a string is read as its JSON.
    for (const shape of [[`token ${GITHUB}`], { sections: [{ body: `export GITHUB_TOKEN=${GITHUB}` }] }]) {
      const item = withContentId({ ts: '2024-05-01T12:00:00Z', conversation_url: 'x://session/2', summary: shape }, 'id');
      const nested = await raw(service, token, 'POST', '/api/v1/sync/summaries', { items: [item] });
      assert.is(nested.status, 422, JSON.stringify(shape).slice(0, 20));
      assert.is(nested.json.code, 'secret_detected');
      assert.equal(nested.json.errors[0].field, 'summary');
    }
    // Nor does it fix the name of a summary's text: any member it does not type is read.
    const titled = withContentId(
      { ts: '2024-05-01T12:00:00Z', conversation_url: 'x://session/3', summary: 'fine', title: `use ${GITHUB}` },
      'id',
    );
    const other = await raw(service, token, 'POST', '/api/v1/sync/summaries', { items: [titled] });
    assert.is(other.status, 422);
    assert.is(other.json.code, 'secret_detected');
    assert.equal(other.json.errors[0].field, 'title');

    const bytes = Buffer.from(`${JSON.stringify({ content: `export AWS_SECRET_ACCESS_KEY=${AWS}` })}\n`);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const inline = await raw(service, token, 'POST', '/api/v1/sync/conversations', {
      items: [
        {
          conversation_id: 'c1',
          content_sha256: sha,
          size: bytes.length,
          ts: '2024-05-01T12:00:00Z',
          content_base64: bytes.toString('base64'),
        },
      ],
    });
    assert.is(inline.status, 422);
    assert.is(inline.json.code, 'secret_detected');
    assert.is(inline.json.errors[0].field, 'content_base64');
    const clean = Buffer.from('{"content":"hello"}\n');
    const named = await raw(service, token, 'POST', '/api/v1/sync/conversations', {
      items: [
        {
          conversation_id: 'c2',
          content_sha256: createHash('sha256').update(clean).digest('hex'),
          size: clean.length,
          ts: '2024-05-01T12:00:00Z',
          content_base64: clean.toString('base64'),
          title: `deploy with ${GITHUB}`,
        },
      ],
    });
    assert.is(named.status, 422, "a transcript row's own members are read too");
    assert.equal(named.json.errors[0].field, 'title');

    const big = transcriptWith(3000, `DB_PASSWORD=${PASSWORD}`);
    const bigSha = createHash('sha256').update(big).digest('hex');
    const blob = await raw(service, token, 'POST', '/api/v1/blobs', big, { 'x-content-sha256': bigSha });
    assert.is(blob.status, 422);
    assert.is(blob.json.code, 'secret_detected');
    assert.match(blob.json.detail, /password-assignment/);
    assert.is((await raw(service, token, 'HEAD', `/api/v1/blobs/${bigSha}`)).status, 404, 'the blob was not kept');
    // A line that is not UTF-8 (a stray Latin-1 byte) is text all the same: its secret is found.
    const latin1 = Buffer.concat([Buffer.from('{"content":"caf'), Buffer.from([0xe9]), Buffer.from(` ${GITHUB}"}\n`)]);
    const latin1Sha = createHash('sha256').update(latin1).digest('hex');
    const broken = await raw(service, token, 'POST', '/api/v1/blobs', latin1, { 'x-content-sha256': latin1Sha });
    assert.is(broken.status, 422);
    assert.is(broken.json.code, 'secret_detected');
    // Nor does a line of a few stray bytes more (binary, to a scan), which the team view shows as text all the same.
    const stray = Buffer.concat([
      Buffer.from('{"content":"output: '),
      Buffer.from([0x93, 0x94, 0x85, 0x93, 0x94, 0x85, 0x93, 0x94, 0x85]),
      Buffer.from(` export GITHUB_TOKEN=${GITHUB}"}\n`),
    ]);
    const straySha = createHash('sha256').update(stray).digest('hex');
    const binary = await raw(service, token, 'POST', '/api/v1/blobs', stray, { 'x-content-sha256': straySha });
    assert.is(binary.status, 422);
    assert.is(binary.json.code, 'secret_detected');
    // Nor does an escape that hides the token's first letter from a scan of the raw line.
    const escaped = Buffer.from(`{"content":"my token is \\u0067${GITHUB.slice(1)}"}\n`);
    const escapedSha = createHash('sha256').update(escaped).digest('hex');
    const hidden = await raw(service, token, 'POST', '/api/v1/blobs', escaped, { 'x-content-sha256': escapedSha });
    assert.is(hidden.status, 422);
    assert.is(hidden.json.code, 'secret_detected');
    assert.not.ok(holdsSecret(await serviceContents(service)), 'nothing of the refused uploads is stored');

    // A client with redaction switched off meets the gate too: the row is refused, the rest goes.
    const m = await machine({ remoteUrl: `${service.url}/acme/web`, token });
    assert.is((await m.run(['config', 'set', 'plugins', '!redact'])).code, 0);
    addSummary(m, { summary: `leaked ${GITHUB}` });
    addSummary(m, { summary: 'harmless' });
    const push = await m.run(['push', '--json']);
    assert.is(push.code, 7, 'a refused item fails the push (items_unsynced), nothing dropped');
    const report = JSON.parse(push.stdout).push;
    assert.is(report.families.find((one: any) => one.family === 'summaries').failed, 1);
    assert.match(readFileSync(join(m.dir, 'push-errors.log'), 'utf8'), /secret_detected/);
    assert.not.ok(holdsSecret(await serviceContents(service)));
  });

  test(`${backend}: with --allow-secrets the service stores what it is sent`, async () => {
    const service = await startService({ backend, allowSecrets: true });
    await service.createProject('acme', 'web');
    const token = await service.createToken({ org: 'acme', project: 'web', name: 'x' });
    const summary = withContentId({ ts: '2024-05-01T12:00:00Z', conversation_url: 'x://session/1', summary: `token ${GITHUB}` }, 'id');
    const stored = await raw(service, token, 'POST', '/api/v1/sync/summaries', { items: [summary] });
    assert.is(stored.status, 200);
    assert.is(stored.json.inserted, 1);
  });
}

test('a summary member that is not a string, or not named summary, goes out with each string inside it redacted, and the gate lets it in', async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web', name: 'laptop' });
  const m = await machine({ remoteUrl: `${service.url}/acme/web`, token });
  addSummary(m, {
    summary: { title: 'Deploy', steps: ['built it', `pushed with ${GITHUB}`], count: 2 },
    notes: `token ${GITHUB}`,
    // A secret under its key, as the gate reads the member's JSON: the push must find it the same way.
    details: { password: PASSWORD },
  });
  const push = await m.run(['push', '--json']);
  assert.is(push.code, 0, push.stderr);
  assert.is(JSON.parse(push.stdout).push.families.find((one: any) => one.family === 'summaries').sent, 1);
  const onService = await serviceContents(service);
  assert.not.ok(holdsSecret(onService), 'no secret on the service');
  assert.ok(onService.includes('pushed with [REDACTED:github-token:'), 'the string that held it, redacted in place');
  assert.ok(onService.includes('token [REDACTED:github-token:'), 'a member of another name, redacted too');
  assert.ok(onService.includes('built it'), 'the rest as it was');
});

test('a secret an older client pushed reaches a pull; tracer redact --store cleans it, and the next pull does not bring it back', async () => {
  const service = await startService({ allowSecrets: true });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web', name: 'x' });
  const summary = withContentId({ ts: '2024-05-01T12:00:00Z', conversation_url: 'x://session/1', summary: `old ${GITHUB}` }, 'id');
  const bytes = transcriptWith(10, `export AWS_SECRET_ACCESS_KEY=${AWS}`);
  const sha = createHash('sha256').update(bytes).digest('hex');
  const row = {
    conversation_id: 'old',
    content_sha256: sha,
    size: bytes.length,
    ts: '2024-05-01T12:00:00Z',
    content_base64: bytes.toString('base64'),
  };
  assert.is((await raw(service, token, 'POST', '/api/v1/sync/summaries', { items: [summary] })).status, 200);
  assert.is((await raw(service, token, 'POST', '/api/v1/sync/conversations', { items: [row] })).status, 200);
  const m = await machine({ remoteUrl: `${service.url}/acme/web`, token });
  assert.is(JSON.parse((await m.run(['pull', '--json'])).stdout).pull.totals.inserted, 2);
  assert.ok(holdsSecret(storeText(m)), 'a pull stores what the service holds');
  const cleaned = await m.run(['redact', '--store']);
  assert.is(cleaned.code, 0, cleaned.stderr);
  assert.not.ok(holdsSecret(storeText(m)));
  assert.is(JSON.parse((await m.run(['pull', '--json'])).stdout).pull.totals.inserted, 0, 'the old rows are known under their old keys');
  assert.not.ok(holdsSecret(storeText(m)));
  assert.is(readRows(join(m.dir, 'conversations.jsonl')).length, 1);
  assert.is(readRows(join(m.dir, 'session-summaries.jsonl')).length, 1);
});

test('tracer serve says whether the gate is on, never silently off', async () => {
  const { spawnService } = await import('../helpers/service.js');
  const printed = async (service: ServiceHandle, pattern: RegExp) => {
    for (const until = Date.now() + 10_000; !pattern.test(service.output().stdout) && Date.now() < until;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(service.output().stdout, pattern);
  };
  await printed(await spawnService(), /secret gate on: uploads that still hold a secret are refused \(secret_detected\), \d+ detectors/);
  await printed(await spawnService({ allowSecrets: true }), /secret gate OFF \(--allow-secrets\)/);
});

test.run();
