import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { cleanup } from '../helpers/cli.js';
import { stopAllServices } from '../helpers/service.js';
import { machine, readRows } from '../helpers/sync-fixtures.js';
import {
  headerValue,
  hostileAdminBody,
  hostileSha,
  hostileSyncBody,
  oddString,
  percentEncode,
  slugLike,
  validItem,
} from './arbitraries.js';
import {
  assertAlive,
  assertRefusal,
  backends,
  FAMILIES,
  parseResponses,
  rawRequest,
  rawSocket,
  runs,
  snapshot,
  tenants,
  type Tenants,
} from './hostile-support.js';

/**
 * Issue 6, hostile input: malformed and hostile requests to every route, on both
 * mounts and both backends. Every answer is a 4xx problem+json with a snake_case
 * code and a request id, the service keeps answering /healthz, and what it stores
 * (every pull, every blob HEAD, every database row) is exactly what it was.
 */

const BODY_MAX = 1024 * 1024;
const BLOB_MAX = 64 * 1024;
const setups: Array<{ t: Tenants; before: string }> = [];

test.before(async () => {
  for (const backend of await backends()) {
    const t = await tenants(backend, { bodyMaxBytes: BODY_MAX, blobMaxBytes: BLOB_MAX });
    setups.push({ t, before: await snapshot(t) });
  }
});
test.after(async () => {
  await stopAllServices();
  cleanup();
});

/** Runs `check` against every backend, then proves the service is up and its data untouched. */
async function everyBackend(check: (t: Tenants) => Promise<void>): Promise<void> {
  for (const { t, before } of setups) {
    await check(t);
    await assertAlive(t.service);
    assert.is(await snapshot(t), before, `${t.backend}: stored data changed`);
  }
}

const mount = fc.constantFrom('', '/gw/acme/web');
const auth = (token: string): Array<[string, string]> => [
  ['authorization', `Bearer ${token}`],
  ['x-tracer-org', 'acme'],
  ['x-tracer-project', 'web'],
];
const jsonType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
      'application/json; charset=utf-16le',
      'multipart/form-data; boundary=x',
      'application/problem+json',
      'text/json',
      '',
    ),
  },
);

test('hostile JSON bodies on every upload route and both admin routes are refused; nothing is stored', async () => {
  await everyBackend(async (t) => {
    await fc.assert(
      fc.asyncProperty(
        mount,
        jsonType,
        fc.constantFrom(...FAMILIES).chain((family) => hostileSyncBody(family).map((body) => ({ family, body }))),
        async (prefix, type, { family, body }) => {
          const headers = auth(t.tokens.web);
          if (type) headers.push(['content-type', type]);
          const reply = await rawRequest(t.service.url, 'POST', `${prefix}/api/v1/sync/${family}`, headers, body);
          assertRefusal(reply, `${t.backend} POST ${prefix}/api/v1/sync/${family} (${type}) ${String(body).slice(0, 200)}`);
        },
      ),
      runs(120, 1500),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('projects', 'tokens'), mount, jsonType, hostileAdminBody, async (route, prefix, type, body) => {
        const headers: Array<[string, string]> = [['authorization', `Bearer ${t.service.adminSecret}`]];
        if (type) headers.push(['content-type', type]);
        const reply = await rawRequest(t.service.url, 'POST', `${prefix}/api/v1/admin/${route}`, headers, body);
        assertRefusal(reply, `${t.backend} POST admin/${route} (${type}) ${body}`);
      }),
      runs(60, 600),
    );
  });
});

test('hostile query strings on every pull route are refused', async () => {
  const badLimit = fc.constantFrom('0', '-1', '1e3', '1.5', 'abc', '１', ' 5', '0x10', '', '5&limit=6').filter((value) => value !== '');
  const badAfter = fc.oneof(
    oddString.filter((value) => value !== ''),
    fc.constantFrom(
      'djE6LTE',
      Buffer.from('v1:99999999999999999999').toString('base64url'),
      Buffer.from('v2:1').toString('base64url'),
      'djE6MQ==',
      '..%2F..',
    ),
  );
  const badSince = fc.oneof(
    oddString.filter((value) => value !== ''),
    fc.constantFrom('2024-05-01', 'now', '2024-05-01T00:00:00', '+275760-09-13T00:00:00.000Z'),
  );
  await everyBackend(async (t) => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FAMILIES),
        mount,
        fc.constantFrom('limit', 'after', 'since'),
        fc.tuple(badLimit, badAfter, badSince),
        async (family, prefix, which, [limit, after, since]) => {
          const value = { limit, after, since }[which];
          const query = `${which}=${percentEncode(value)}`;
          const reply = await rawRequest(t.service.url, 'GET', `${prefix}/api/v1/sync/${family}?${query}`, auth(t.tokens.web));
          assertRefusal(reply, `${t.backend} GET ${family}?${query}`);
        },
      ),
      runs(80, 800),
    );
  });
});

test('path traversal and malformed shas on HEAD and GET /api/v1/blobs/<sha> are refused', async () => {
  await everyBackend(async (t) => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('HEAD', 'GET'), mount, hostileSha, async (method, prefix, sha) => {
        const reply = await rawRequest(t.service.url, method, `${prefix}/api/v1/blobs/${sha}`, auth(t.tokens.web));
        assertRefusal(reply, `${t.backend} ${method} ${prefix}/api/v1/blobs/${sha.slice(0, 120)}`, method);
      }),
      runs(120, 1500),
    );
  });
});

test('blob uploads with a lying or malformed X-Content-SHA256, a wrong type or too many bytes are refused and never visible', async () => {
  const claim = fc.oneof(
    fc.constant('other'),
    fc.constant('missing'),
    hostileSha.filter((value) => /^[\x21-\x7e]*$/.test(value)),
    fc.constant('A'.repeat(64)),
  );
  const blobType = fc.oneof(
    { weight: 5, arbitrary: fc.constant('application/octet-stream') },
    { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/plain', '') },
  );
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 2048 }),
    fc.integer({ min: BLOB_MAX + 1, max: BLOB_MAX * 3 }).map((size) => new Uint8Array(size)),
  );
  await everyBackend(async (t) => {
    await fc.assert(
      fc.asyncProperty(mount, blobType, claim, bytes, async (prefix, type, claimed, raw) => {
        const body = Buffer.concat([Buffer.from(`fuzz-blob ${Math.random()}`), raw]);
        const real = createHash('sha256').update(body).digest('hex');
        const headers = auth(t.tokens.web);
        if (type) headers.push(['content-type', type]);
        if (claimed === 'other') headers.push(['x-content-sha256', createHash('sha256').update('something else').digest('hex')]);
        else if (claimed !== 'missing') headers.push(['x-content-sha256', claimed]);
        const reply = await rawRequest(t.service.url, 'POST', `${prefix}/api/v1/blobs`, headers, body).catch(
          (error: NodeJS.ErrnoException) => {
            // An oversized upload may have its connection cut after the 413; the snapshot still proves nothing was kept.
            if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return undefined;
            throw error;
          },
        );
        if (reply) assertRefusal(reply, `${t.backend} POST blobs (${type}, ${claimed.slice(0, 80)}, ${body.length} bytes)`);
        const head = await rawRequest(t.service.url, 'HEAD', `/api/v1/blobs/${real}`, auth(t.tokens.web));
        assert.is(head.status, 404, 'a refused upload became visible');
      }),
      runs(60, 600),
    );
  });
});

test('hostile targets: slugs in X-Tracer-Org/Project and in the gateway path, on every route', async () => {
  const routes = fc.constantFrom('pull', 'push', 'head-blob', 'get-blob', 'post-blob');
  const placement = fc.oneof(
    fc.record({ kind: fc.constant('headers' as const), org: headerValue, project: headerValue }),
    fc.record({ kind: fc.constant('gateway-vs-headers' as const), org: slugLike(), project: slugLike() }),
    fc.record({ kind: fc.constant('gateway-only' as const), org: slugLike(), project: slugLike() }),
    fc.record({ kind: fc.constant('headers-vs-gateway' as const), org: headerValue, project: headerValue }),
  );
  await everyBackend(async (t) => {
    await fc.assert(
      fc.asyncProperty(routes, fc.constantFrom(...FAMILIES), placement, async (route, family, where) => {
        let prefix = '';
        const headers: Array<[string, string]> = [['authorization', `Bearer ${t.tokens.web}`]];
        if (where.kind === 'headers') headers.push(['x-tracer-org', where.org], ['x-tracer-project', where.project]);
        if (where.kind === 'gateway-vs-headers' || where.kind === 'gateway-only')
          prefix = `/gw/${percentEncode(where.org)}/${percentEncode(where.project)}`;
        if (where.kind === 'gateway-vs-headers') headers.push(['x-tracer-org', 'acme'], ['x-tracer-project', 'web']);
        if (where.kind === 'headers-vs-gateway') {
          prefix = '/gw/acme/web';
          headers.push(['x-tracer-org', where.org], ['x-tracer-project', where.project]);
        }
        let method = 'GET';
        let path = `/api/v1/sync/${family}`;
        let body: string | Buffer | undefined;
        if (route === 'push') {
          method = 'POST';
          headers.push(['content-type', 'application/json']);
          body = JSON.stringify({ items: [validItem(family)] });
        } else if (route === 'head-blob' || route === 'get-blob') {
          method = route === 'head-blob' ? 'HEAD' : 'GET';
          path = `/api/v1/blobs/${t.blobs.web}`;
        } else if (route === 'post-blob') {
          method = 'POST';
          body = Buffer.from(`fuzz blob for a hostile target ${Math.random()}`);
          headers.push(['content-type', 'application/octet-stream'], ['x-content-sha256', createHash('sha256').update(body).digest('hex')]);
          path = '/api/v1/blobs';
        }
        const reply = await rawRequest(t.service.url, method, `${prefix}${path}`, headers, body);
        assertRefusal(reply, `${t.backend} ${method} ${prefix}${path} ${JSON.stringify(where)}`, method);
      }),
      runs(150, 2000),
    );
  });
});

test('hostile Authorization values are 401 on every route, whoami and admin included', async () => {
  const routes: Array<[string, string]> = [
    ['GET', '/api/v1/auth/whoami'],
    ['GET', '/api/v1/sync/traces'],
    ['POST', '/api/v1/sync/ledgers'],
    ['HEAD', `/api/v1/blobs/${'a'.repeat(64)}`],
    ['GET', `/api/v1/blobs/${'a'.repeat(64)}`],
    ['POST', '/api/v1/blobs'],
    ['POST', '/api/v1/admin/projects'],
    ['POST', '/api/v1/admin/tokens'],
  ];
  await everyBackend(async (t) => {
    const value = fc.oneof(
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Basic YWRtaW46YWRtaW4=',
        `Token ${t.tokens.web}`,
        `Bearer ${t.tokens.web}x`,
        `Bearer ${t.tokens.web.slice(0, -1)}`,
        `Bearer ${t.tokens.web} extra`,
        'Bearer trc_',
        `Bearer\t`,
        '',
      ),
      headerValue.map((text) => `Bearer ${text}`),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), mount, value, async ([method, path], prefix, authorization) => {
        const headers: Array<[string, string]> = [
          ['authorization', authorization],
          ['x-tracer-org', 'acme'],
          ['x-tracer-project', 'web'],
        ];
        const body = method === 'POST' ? '{"org_slug": "acme", "project_slug": "fuzz", "name": "x", "items": []}' : undefined;
        if (body) headers.push(['content-type', 'application/json']);
        const reply = await rawRequest(t.service.url, method, `${prefix}${path}`, headers, body);
        assertRefusal(reply, `${t.backend} ${method} ${path} with ${JSON.stringify(authorization.slice(0, 80))}`, method);
        assert.is(reply.status, 401);
      }),
      runs(60, 600),
    );
    // The admin secret is not a tenant token, and a tenant token is not the admin secret.
    assertRefusal(await rawRequest(t.service.url, 'GET', '/api/v1/sync/traces', auth(t.service.adminSecret!)), 'admin secret as a token');
    const asAdmin = await rawRequest(
      t.service.url,
      'POST',
      '/api/v1/admin/projects',
      [
        ['authorization', `Bearer ${t.tokens.acmeOrg}`],
        ['content-type', 'application/json'],
      ],
      '{"org_slug": "acme", "project_slug": "sneaky"}',
    );
    assertRefusal(asAdmin, 'org token on the admin route');
  });
});

/** A request whose complete form would be valid: whatever arrives of it must not store anything. */
function validUpload(t: Tenants, prefix: string) {
  const body = JSON.stringify({ items: [validItem('traces'), validItem('conversations')] });
  const head = (length: number, extra = '') =>
    `POST ${prefix}/api/v1/sync/${'traces'} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.tokens.web}\r\nX-Tracer-Org: acme\r\nX-Tracer-Project: web\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n${extra}\r\n`;
  return { body, head };
}

async function assertRawRefusals(t: Tenants, bytes: string | Buffer, what: string, halfClose = false): Promise<void> {
  const replies = parseResponses(await rawSocket(t.service.url, bytes, { halfClose }));
  assert.ok(replies.length >= 1, `${t.backend} ${what}: no answer at all`);
  for (const reply of replies) assertRefusal(reply, `${t.backend} ${what}`);
}

test('truncated bodies over a raw socket with a lying Content-Length: refused, nothing half-stored', async () => {
  await everyBackend(async (t) => {
    await fc.assert(
      fc.asyncProperty(mount, fc.double({ min: 0, max: 0.999, noNaN: true }), fc.boolean(), async (prefix, fraction, blob) => {
        if (blob) {
          const bytes = Buffer.from(`a blob cut short ${Math.random()} ${'z'.repeat(4000)}`);
          const sha = createHash('sha256').update(bytes).digest('hex');
          const cut = Math.floor(bytes.length * fraction);
          const head = `POST ${prefix}/api/v1/blobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.tokens.web}\r\nX-Tracer-Org: acme\r\nX-Tracer-Project: web\r\nContent-Type: application/octet-stream\r\nX-Content-SHA256: ${sha}\r\nContent-Length: ${bytes.length}\r\n\r\n`;
          await assertRawRefusals(
            t,
            Buffer.concat([Buffer.from(head), bytes.subarray(0, cut)]),
            `blob cut at ${cut}/${bytes.length}`,
            true,
          );
          assert.is(
            (await rawRequest(t.service.url, 'HEAD', `/api/v1/blobs/${sha}`, auth(t.tokens.web))).status,
            404,
            'a cut blob became visible',
          );
        } else {
          const { body, head } = validUpload(t, prefix);
          const cut = Math.floor(Buffer.byteLength(body) * fraction);
          await assertRawRefusals(t, head(Buffer.byteLength(body)) + body.slice(0, cut), `body cut at ${cut}`, true);
        }
      }),
      runs(40, 400),
    );
  });
});

test('malformed HTTP and duplicate headers over a raw socket get problem+json refusals', async () => {
  await everyBackend(async (t) => {
    const { body, head } = validUpload(t, '');
    const get = (extra: string) =>
      `GET /api/v1/sync/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.tokens.web}\r\nX-Tracer-Org: acme\r\nX-Tracer-Project: web\r\nConnection: close\r\n${extra}\r\n`;
    const cases: Array<[string, string]> = [
      ['Content-Length shorter than the body', head(10) + body],
      ['two different Content-Lengths', head(Buffer.byteLength(body), `Content-Length: ${Buffer.byteLength(body) + 1}\r\n`) + body],
      ['Content-Length and chunked at once', head(Buffer.byteLength(body), 'Transfer-Encoding: chunked\r\n') + body],
      ['a malformed chunk size', head(0).replace('Content-Length: 0\r\n', 'Transfer-Encoding: chunked\r\n') + 'zz\r\n{}\r\n0\r\n\r\n'],
      ['a NUL in a header value', get('X-Note: a\u0000b\r\n')],
      ['a bare CR in a header value', get('X-Note: a\rb\r\n')],
      ['a header without a colon', get('Not a header\r\n')],
      ['headers over the size limit', get(`X-Padding: ${'p'.repeat(20_000)}\r\n`)],
      ['a URL over the size limit', `GET /api/v1/sync/traces?after=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
      ['garbage for a request line', 'HELLO\r\n\r\n'],
      [
        'an undecodable percent escape in the path',
        `GET /api/v1/blobs/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${t.tokens.web}\r\n\r\n`,
      ],
      [
        'an undecodable gateway slug',
        `GET /gw/acme/%ZZ/api/v1/sync/traces HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${t.tokens.web}\r\n\r\n`,
      ],
      ['no Host header', get('').replace('Host: 127.0.0.1\r\n', '')],
      ['two Host headers', get('Host: elsewhere.example\r\n')],
      ['two Authorization headers (own token first)', get(`Authorization: Bearer ${t.tokens.shop}\r\n`)],
      [
        'two Authorization headers (stranger first)',
        get('').replace(
          `Authorization: Bearer ${t.tokens.web}\r\n`,
          `Authorization: Bearer ${t.tokens.shop}\r\nAuthorization: Bearer ${t.tokens.web}\r\n`,
        ),
      ],
      ['two X-Tracer-Org headers', get('X-Tracer-Org: globex\r\n')],
      ['two X-Tracer-Project headers', get('X-Tracer-Project: web\r\n')],
      ['two Content-Types', head(Buffer.byteLength(body), 'Content-Type: text/plain\r\n') + body],
      [
        'two X-Content-SHA256 headers',
        `POST /api/v1/blobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.tokens.web}\r\nX-Tracer-Org: acme\r\nX-Tracer-Project: web\r\nConnection: close\r\nContent-Type: application/octet-stream\r\nX-Content-SHA256: ${'a'.repeat(64)}\r\nX-Content-SHA256: ${createHash('sha256').update('x').digest('hex')}\r\nContent-Length: 1\r\n\r\nx`,
      ],
      [
        'a deep JSON body with a well-formed id',
        head(0).replace('Content-Length: 0', `Content-Length: ${Buffer.byteLength(deepBody())}`) + deepBody(),
      ],
    ];
    for (const [what, bytes] of cases) await assertRawRefusals(t, bytes, what);
  });
});

test("a hostile server's rows with no canonical form are dropped one by one; the pull goes on", async () => {
  const good = withContentId({ ts: '2024-05-01T12:00:00.000Z', ok: true }, 'id');
  const rows = [
    JSON.stringify(good),
    `{"id": "${'a'.repeat(64)}", "ts": "2024-05-01T12:00:00.000Z", "x": "\\ud800"}`,
    `{"id": "${'b'.repeat(64)}", "ts": "2024-05-01T12:00:00.000Z", "d": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
    `{"id": "${'c'.repeat(64)}", "ts": "2024-05-01T12:00:00.000Z", "n": 1e400}`,
  ];
  const server = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    const path = request.url ?? '';
    if (path.startsWith('/api/v1/auth/whoami'))
      return response.end('{"org_slug": "acme", "project_slug": "web", "scope": "project", "token_name": "x"}');
    if (path.startsWith('/api/v1/sync/traces'))
      return response.end(`{"items": [${rows.join(', ')}], "next_cursor": "c1", "has_more": false}`);
    if (path.startsWith('/api/v1/sync/')) return response.end('{"items": [], "next_cursor": "c1", "has_more": false}');
    response.statusCode = 404;
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const client = await machine({ remoteUrl: `http://127.0.0.1:${port}/acme/web`, token: 'trc_hostile-server' });
    const pulled = await client.main(['pull']);
    assert.is(pulled.code, 0, pulled.stderr);
    assert.match(pulled.stderr, 'invalid_pulled_record');
    assert.equal(readRows(join(client.dir, 'traces.jsonl')), [good]);
  } finally {
    server.close();
  }
});

function deepBody(): string {
  return `{"items": [{"id": "${'e'.repeat(64)}", "ts": "2024-05-01T12:00:00.000Z", "deep": ${'['.repeat(50_000)}${']'.repeat(50_000)}}]}`;
}

test.run();
