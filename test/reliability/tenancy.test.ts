import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { stopAllServices } from '../helpers/service.js';
import { clientFor, commitLink as linkRow, conversation, summary as summaryRow } from '../server/http.js';
import { validItem } from './arbitraries.js';
import { assertRefusal, backends, FAMILIES, rawRequest, tenants, type Tenants } from './hostile-support.js';

/**
 * Issue 6, tenancy: a token for org A / project P reaches nothing of org B or
 * project Q on any route (sync pull and upload of every family, blob HEAD, GET and
 * POST), through the headers, the gateway mount or both; an org-wide token reaches
 * the projects of its org only, projects registered after it included. whoami is
 * aside: it describes the token. Refused requests store nothing anywhere.
 */

type TokenName = 'web' | 'api' | 'acmeOrg' | 'shop' | 'globexOrg';
const SCOPES: Record<TokenName, { org: string; project: string | null }> = {
  web: { org: 'acme', project: 'web' },
  api: { org: 'acme', project: 'api' },
  acmeOrg: { org: 'acme', project: null },
  shop: { org: 'globex', project: 'shop' },
  globexOrg: { org: 'globex', project: null },
};
/** Registered projects, one registered after every token (`late`), and unregistered names in both orgs. */
const TARGETS = [
  ['acme', 'web'],
  ['acme', 'api'],
  ['globex', 'shop'],
  ['acme', 'late'],
  ['acme', 'ghost'],
  ['globex', 'ghost'],
] as const;
const REGISTERED = new Set(['acme/web', 'acme/api', 'globex/shop', 'acme/late']);
const MOUNTS = ['headers', 'gateway', 'both'] as const;

const setups: Tenants[] = [];
test.before(async () => {
  for (const backend of await backends()) {
    const t = await tenants(backend);
    await t.service.createProject('acme', 'late');
    setups.push(t);
  }
});
test.after(async () => {
  await stopAllServices();
  cleanup();
});

const covers = (token: TokenName, org: string, project: string) =>
  SCOPES[token].org === org && (SCOPES[token].project === null || SCOPES[token].project === project);

function request(t: Tenants, token: TokenName, [org, project]: readonly [string, string], mount: (typeof MOUNTS)[number]) {
  const prefix = mount === 'headers' ? '' : `/gw/${org}/${project}`;
  const headers: Array<[string, string]> = [['authorization', `Bearer ${t.tokens[token]}`]];
  if (mount !== 'gateway') headers.push(['x-tracer-org', org], ['x-tracer-project', project]);
  return { prefix, headers };
}

test('every route, every token, every target, every mount: reached exactly when the token covers the project', async () => {
  for (const t of setups) {
    let attempts = 0;
    for (const token of Object.keys(SCOPES) as TokenName[]) {
      for (const target of TARGETS) {
        for (const mount of MOUNTS) {
          const [org, project] = target;
          const where = `${t.backend} token ${token} → ${org}/${project} via ${mount}`;
          const { prefix, headers } = request(t, token, target, mount);
          const allowed = covers(token, org, project);
          const expect = async (method: string, path: string, extraHeaders: Array<[string, string]> = [], body?: string | Buffer) => {
            attempts += 1;
            const reply = await rawRequest(t.service.url, method, `${prefix}${path}`, [...headers, ...extraHeaders], body);
            const what = `${where}: ${method} ${path}`;
            if (!allowed) {
              assertRefusal(reply, what, method);
              assert.is(reply.status, 403, `${what} → ${reply.status} ${reply.text}`);
              if (method !== 'HEAD') assert.is(reply.json.code, 'forbidden', what);
              // A refusal names only what the caller sent: nothing of the other tenant's data.
              assert.not.ok(/tenant|transcript held/.test(reply.text), `${what} leaked data: ${reply.text}`);
            } else if (!REGISTERED.has(`${org}/${project}`)) {
              assertRefusal(reply, what, method);
              assert.is(reply.status, 404, `${what} → ${reply.status} ${reply.text}`);
              if (method !== 'HEAD') assert.is(reply.json.code, 'project_not_found', what);
            }
            return { reply, allowed: allowed && REGISTERED.has(`${org}/${project}`) };
          };

          for (const family of FAMILIES) {
            const pulled = await expect('GET', `/api/v1/sync/${family}`);
            if (pulled.allowed) {
              assert.is(pulled.reply.status, 200, `${where} pull ${family}: ${pulled.reply.text}`);
              for (const item of pulled.reply.json.items) {
                const owner = item.tenant ?? item.target;
                if (owner !== undefined)
                  assert.ok(owner === project || owner === `${org}/${project}`, `${where}: pull of ${family} returned a row of ${owner}`);
              }
            }
            const item = validItem(family, { target: `${org}/${project}`, by: token, mount });
            const pushed = await expect(
              'POST',
              `/api/v1/sync/${family}`,
              [['content-type', 'application/json']],
              JSON.stringify({ items: [item] }),
            );
            if (pushed.allowed) assert.is(pushed.reply.status, 200, `${where} push ${family}: ${pushed.reply.text}`);
          }
          for (const [owner, sha] of Object.entries(t.blobs)) {
            const ownerProject = owner === 'web' ? 'acme/web' : 'globex/shop';
            for (const method of ['HEAD', 'GET']) {
              const blob = await expect(method, `/api/v1/blobs/${sha}`);
              if (!blob.allowed) continue;
              const holds = ownerProject === `${org}/${project}`;
              assert.is(blob.reply.status, holds ? 200 : 404, `${where}: ${method} blob of ${owner} → ${blob.reply.status}`);
              if (!holds && method === 'GET') assert.is(blob.reply.json.code, 'not_found');
            }
          }
          const bytes = Buffer.from(`tenancy blob ${token} ${org}/${project} ${mount} ${t.backend}`);
          const sha = createHash('sha256').update(bytes).digest('hex');
          const uploaded = await expect(
            'POST',
            '/api/v1/blobs',
            [
              ['content-type', 'application/octet-stream'],
              ['x-content-sha256', sha],
            ],
            bytes,
          );
          if (uploaded.allowed) assert.is(uploaded.reply.status, 201, `${where}: upload → ${uploaded.reply.status} ${uploaded.reply.text}`);
          // Whoever uploaded, only that project sees the blob; a refused upload is seen by nobody.
          for (const [org2, project2] of [
            ['acme', 'web'],
            ['acme', 'api'],
            ['globex', 'shop'],
            ['acme', 'late'],
          ] as const) {
            const head = await rawRequest(t.service.url, 'HEAD', `/api/v1/blobs/${sha}`, [
              ['authorization', `Bearer ${t.tokens[org2 === 'acme' ? 'acmeOrg' : 'globexOrg']}`],
              ['x-tracer-org', org2],
              ['x-tracer-project', project2],
            ]);
            const visible = uploaded.allowed && org2 === org && project2 === project;
            assert.is(
              head.status,
              visible ? 200 : 404,
              `${where}: the upload is ${head.status === 200 ? '' : 'not '}visible to ${org2}/${project2}`,
            );
          }
        }
      }
    }
    assert.ok(attempts > 1000, `only ${attempts} requests made`);

    // What the matrix stored: every row landed in the project it named, and only from a token covering it.
    for (const [org, project] of [
      ['acme', 'web'],
      ['acme', 'api'],
      ['globex', 'shop'],
      ['acme', 'late'],
    ] as const) {
      const client = clientFor(t.service, t.tokens[org === 'acme' ? 'acmeOrg' : 'globexOrg'], org, project);
      for (const family of FAMILIES) {
        for (const item of await client.pullAll(family)) {
          if (item.target === undefined) continue;
          assert.is(item.target, `${org}/${project}`, `${t.backend}: ${family} row for ${item.target} stored in ${org}/${project}`);
          assert.ok(covers(item.by, org, project), `${t.backend}: ${family} row from token ${item.by} stored in ${org}/${project}`);
        }
      }
    }
  }
});

test("another org's project is 403 whether or not it exists, with the same answer", async () => {
  for (const t of setups) {
    for (const family of FAMILIES) {
      const existing = await rawRequest(
        t.service.url,
        'GET',
        `/api/v1/sync/${family}`,
        request(t, 'web', ['globex', 'shop'], 'headers').headers,
      );
      const missing = await rawRequest(
        t.service.url,
        'GET',
        `/api/v1/sync/${family}`,
        request(t, 'web', ['globex', 'nothing-here'], 'headers').headers,
      );
      assert.is(existing.status, 403);
      assert.is(missing.status, 403);
      assert.is(existing.json.code, missing.json.code);
      assert.is(existing.json.title, missing.json.title);
    }
  }
});

test('a pointer row cannot claim another tenant’s blob, and uploading bytes is the only way to reach them', async () => {
  for (const t of setups) {
    const claim = await t.shop.push('conversations', [
      { conversation_id: 'steal', content_sha256: t.blobs.web, size: 1032, ts: '2024-05-01T12:00:00.000Z' },
    ]);
    assertRefusal({ ...claim, headers: Object.fromEntries(claim.headers) }, `${t.backend} shop pointer to web's blob`);
    assert.ok([409, 422].includes(claim.status), claim.text);
    assert.is((await t.shop.head(`/api/v1/blobs/${t.blobs.web}`)).status, 404);
    // Claiming the sha with other bytes is a mismatch, not access.
    const lie = await t.shop.uploadBlob(Buffer.from('not the bytes'), t.blobs.web);
    assert.is(lie.status, 422);
    assert.is(lie.json.code, 'sha_mismatch');
    assert.is((await t.shop.head(`/api/v1/blobs/${t.blobs.web}`)).status, 404);
    // Inline content under another tenant's sha must hash to it: no way to attach a row to bytes one lacks.
    const forged = await t.shop.push('conversations', [{ ...conversation(Buffer.from('other bytes'), true), content_sha256: t.blobs.web }]);
    assert.is(forged.status, 422, forged.text);
    assert.is((await t.shop.get(`/api/v1/blobs/${t.blobs.web}`)).status, 404);
  }
});

test('whoami describes the token on any target; tenant tokens are not admin secrets', async () => {
  for (const t of setups) {
    for (const token of Object.keys(SCOPES) as TokenName[]) {
      for (const mount of MOUNTS) {
        const { prefix, headers } = request(t, token, ['globex', 'shop'], mount);
        const whoami = await rawRequest(t.service.url, 'GET', `${prefix}/api/v1/auth/whoami`, headers);
        assert.is(whoami.status, 200, whoami.text);
        assert.equal(
          { org: whoami.json.org_slug, project: whoami.json.project_slug },
          { org: SCOPES[token].org, project: SCOPES[token].project },
          `${t.backend} whoami of ${token}`,
        );
        for (const route of ['projects', 'tokens']) {
          const admin = await rawRequest(
            t.service.url,
            'POST',
            `${prefix}/api/v1/admin/${route}`,
            [...headers, ['content-type', 'application/json']],
            JSON.stringify({ org_slug: SCOPES[token].org, project_slug: 'sneaky', name: 'sneaky' }),
          );
          assertRefusal(admin, `${t.backend} ${token} on admin/${route}`);
          assert.is(admin.status, 401);
        }
      }
    }
    // Nothing "sneaky" was registered: an org token of acme finds no such project.
    const sneaky = await clientFor(t.service, t.tokens.acmeOrg, 'acme', 'sneaky').pull('traces');
    assert.is(sneaky.status, 404);
    assert.is(sneaky.json.code, 'project_not_found');
  }
});

test("the team view's search finds a project's text for the tokens covering it, and nothing of another project or org", async () => {
  const { signIn } = await import('../privacy/support.js');
  const owners = { web: ['acme', 'web'], api: ['acme', 'api'], shop: ['globex', 'shop'] } as const;
  const word = (name: string) => `tenantword${name}`;
  for (const t of setups) {
    // Each project's own word, in a summary and a commit subject (the texts a search reads besides transcripts).
    for (const [name, client] of [
      ['web', t.web],
      ['api', t.api],
      ['shop', t.shop],
    ] as const) {
      const summary = await client.push('summaries', [
        summaryRow({ conversation_id: `search-${name}`, summary: `only ${word(name)} here`, ts: '2024-05-02T00:00:00.000Z' }),
      ]);
      assert.is(summary.status, 200, summary.text);
      const link = await client.push('commit-links', [linkRow({ commit: 'f'.repeat(40), subject: `Fix ${word(name)}` })]);
      assert.is(link.status, 200, link.text);
    }
    const cookies = {} as Record<TokenName, string>;
    for (const token of Object.keys(SCOPES) as TokenName[]) cookies[token] = await signIn(t.service.url, t.tokens[token]);
    const search = async (token: TokenName, org: string, project: string, q: string) => {
      const response = await fetch(`${t.service.url}/ui/api/p/${org}/${project}/search?${new URLSearchParams({ q })}`, {
        headers: { cookie: cookies[token] },
      });
      return {
        status: response.status,
        json: (await response.json()) as { code?: string; pending?: number; hits?: Array<{ snippet: string }> },
      };
    };
    // Indexed in the background: asked through a token that covers each project until nothing is pending.
    for (const [name, [org, project]] of Object.entries(owners)) {
      const owner = name as TokenName;
      for (let tries = 0; ; tries += 1) {
        const reply = await search(owner, org, project, 'anything');
        assert.is(reply.status, 200, JSON.stringify(reply.json));
        if (reply.json.pending === 0) break;
        if (tries > 300) throw new Error(`${t.backend} ${org}/${project}: the search index never caught up`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    for (const token of Object.keys(SCOPES) as TokenName[]) {
      for (const [org, project] of TARGETS) {
        for (const name of Object.keys(owners)) {
          const reply = await search(token, org, project, word(name));
          const where = `${t.backend}: ${token} searching ${org}/${project} for ${name}'s word`;
          if (!covers(token, org, project) || !REGISTERED.has(`${org}/${project}`)) {
            assert.is(reply.status, 404, where);
            assert.is(reply.json.code, 'unknown_project', where);
            continue;
          }
          assert.is(reply.status, 200, where);
          const own = owners[name as keyof typeof owners];
          const expected = own[0] === org && own[1] === project ? 2 : 0;
          assert.is(reply.json.hits!.length, expected, where);
          for (const hit of reply.json.hits!) assert.match(hit.snippet, word(name), where);
        }
      }
    }
  }
});

test.run();
