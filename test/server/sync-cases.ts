import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import type { Fixture } from './fixture.js';
import { soloService } from './fixture.js';
import { assertProblem, commitLink, conversation, ledger, request, summary, trace } from './http.js';

/** Upload and pull of every family: validation, dedup, pagination, concurrency. */
export function syncCases(test: Test<{ fixture: Fixture }>): void {
  test('every family uploads, deduplicates by content id, and pulls back verbatim', async ({ fixture }) => {
    const batches: Record<string, Record<string, unknown>[]> = {
      traces: [
        trace({ nested: { b: 1, a: [1, 'x'] } }),
        trace(),
        withContentId(JSON.parse('{"ts":"2024-05-01T12:00:00.000Z","__proto__":{"polluted":true},"kind":"proto"}'), 'id'),
      ],
      ledgers: [
        ledger(),
        ledger({ commit: 'c'.repeat(64) }),
        // The two shapes tracer has written: the Agent Trace record in `record`, and before it the record's members at the top level.
        ledger({
          record: {
            version: '0.1.0',
            id: '3f1c2b4a-5d6e-8f70-8a1b-2c3d4e5f6a7b',
            timestamp: '2024-05-01T12:00:00.000Z',
            files: [{ path: 'a.js', conversations: [] }],
          },
        }),
        ledger({
          version: '0.1',
          tool: { name: 'tracer' },
          files: [{ path: 'a.js', contributor: { type: 'ai' }, conversations: [{ trace_ids: [] }] }],
        }),
      ],
      'commit-links': [commitLink()],
      summaries: [summary()],
      conversations: [conversation(Buffer.from('{"role":"user"}\n'), true)],
    };
    const { api } = fixture;
    for (const [family, items] of Object.entries(batches)) {
      const first = await api.push(family, items);
      assert.equal(first.json, { received: items.length, inserted: items.length, duplicates: 0 }, `${family}: ${first.text}`);
      const again = await api.push(family, items);
      assert.equal(again.json, { received: items.length, inserted: 0, duplicates: items.length });
      const pulled = await api.pullAll(family);
      for (const item of items)
        assert.ok(
          pulled.some((row) => JSON.stringify(row) === JSON.stringify(item)),
          `${family} returns the item verbatim`,
        );
    }
  });

  test('one invalid item rejects the whole batch with invalid_item and errors[], storing nothing', async ({ fixture }) => {
    const { api } = fixture;
    const before = (await api.pullAll('ledgers')).length;
    const good = ledger();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['ledgers', withContentId({ ts: '2024-01-01T00:00:00Z', commit: 'xyz', trace_ids: [] }, 'sha'), 'commit'],
      ['ledgers', withContentId({ ts: '2024-01-01T00:00:00Z', commit: 'a'.repeat(40), trace_ids: 'abc' }, 'sha'), 'trace_ids'],
      ['ledgers', withContentId({ ts: '2024-01-01T00:00:00Z', trace_ids: [] }, 'sha'), 'commit'],
      ['ledgers', withContentId({ ts: 'yesterday', commit: 'a'.repeat(40), trace_ids: [] }, 'sha'), 'ts'],
      ['traces', { n: 1, ts: '2024-01-01T00:00:00Z' }, 'id'],
      ['summaries', withContentId({ ts: '2024-01-01T00:00:00Z' }, 'id'), 'conversation_url'],
      ['conversations', { conversation_id: 'c', content_sha256: 'f'.repeat(64), ts: '2024-01-01T00:00:00Z' }, 'size'],
    ];
    for (const [family, bad, field] of cases) {
      const reply = await api.push(family, family === 'ledgers' ? [good, bad] : [bad]);
      assertProblem(reply, 422, 'invalid_item');
      const error = reply.json.errors.find((entry: { field: string }) => entry.field === field);
      assert.ok(error, `${family}: an error names ${field}: ${reply.text}`);
      assert.is(error.index, family === 'ledgers' ? 1 : 0);
      assert.type(error.message, 'string');
    }
    assertProblem(await api.push('traces', ['not an object']), 422, 'invalid_item');
    assert.is((await api.pullAll('ledgers')).length, before, 'nothing stored');
  });

  test('a wrong content id is refused with content_id_mismatch', async ({ fixture }) => {
    const tampered = { ...trace(), tool: 'tampered' };
    const reply = await fixture.api.push('traces', [trace(), tampered]);
    assertProblem(reply, 422, 'content_id_mismatch');
    assert.equal(
      reply.json.errors.map((error: { index: number; field: string }) => [error.index, error.field]),
      [[1, 'id']],
    );
  });

  test('bad bodies: invalid JSON, wrong content type, no items, too many items, too large, unknown family', async ({ fixture }) => {
    const { api } = fixture;
    assertProblem(await api.post('/api/v1/sync/traces', '{"items": [', 'application/json'), 400, 'invalid_json');
    assertProblem(await api.post('/api/v1/sync/traces', '', 'application/json'), 400, 'invalid_json');
    assertProblem(await api.post('/api/v1/sync/traces', JSON.stringify({ items: [] }), 'text/plain'), 415, 'unsupported_media_type');
    assertProblem(await api.post('/api/v1/sync/traces', 'abc', 'application/octet-stream'), 415, 'unsupported_media_type');
    assertProblem(await api.post('/api/v1/sync/traces', JSON.stringify({ rows: [] }), 'application/json'), 422, 'invalid_body');
    assertProblem(await api.post('/api/v1/sync/traces', '[]', 'application/json'), 422, 'invalid_body');
    assertProblem(
      await api.push(
        'traces',
        Array.from({ length: 501 }, () => trace()),
      ),
      413,
      'too_many_items',
    );
    assert.is(
      (
        await api.push(
          'traces',
          Array.from({ length: 500 }, () => trace()),
        )
      ).json.inserted,
      500,
    );
    assertProblem(await api.push('no-such-family', [trace()]), 404, 'not_found');
    assertProblem(await api.pull('no-such-family'), 404, 'not_found');
    assertProblem(await api.get('/api/v2/sync/traces'), 404, 'not_found');
    const small = await soloService(fixture, { bodyMaxBytes: 4096 });
    assertProblem(await small.client.push('traces', [trace({ padding: 'x'.repeat(8000) })]), 413, 'body_too_large');
    assert.is((await small.client.push('traces', [trace()])).status, 200, 'still serving');
    await small.service.stop();
  });

  test('pull: ingest order, opaque cursor, has_more, limit default and cap, since', async ({ fixture }) => {
    const { service } = fixture;
    const { client } = await soloService(fixture);
    const items = Array.from({ length: 1100 }, (_, n) => trace({ ts: `2024-0${n < 550 ? 1 : 2}-01T00:00:00.000Z`, order: n }));
    for (let start = 0; start < items.length; start += 500)
      assert.is((await client.push('traces', items.slice(start, start + 500))).status, 200);
    const first = await client.pull('traces');
    assert.is(first.json.items.length, 500, 'default page 500');
    assert.is(first.json.has_more, true);
    assert.type(first.json.next_cursor, 'string');
    const capped = await client.pull('traces', 'limit=5000');
    assert.is(capped.json.items.length, 1000, 'capped at 1000 without error');
    const rest = await client.pull('traces', `after=${capped.json.next_cursor}&limit=5000`);
    assert.is(rest.json.items.length, 100);
    assert.is(rest.json.has_more, false);
    assert.equal(
      [...capped.json.items, ...rest.json.items].map((item: { order: number }) => item.order),
      items.map((item) => item.order),
    );
    const end = await client.pull('traces', `after=${rest.json.next_cursor}`);
    assert.equal(end.json.items, []);
    assert.is(end.json.next_cursor, rest.json.next_cursor, 'an empty page keeps the cursor');
    const since = await client.pull('traces', 'since=2024-02-01T00:00:00Z&limit=1000');
    assert.equal(
      since.json.items.map((item: { order: number }) => item.order),
      items.slice(550).map((item) => item.order),
    );
    assertProblem(await client.pull('traces', 'after=garbage!'), 400, 'invalid_cursor');
    assertProblem(await client.pull('traces', 'after=djE6eA'), 400, 'invalid_cursor');
    assertProblem(await client.pull('traces', 'limit=0'), 400, 'invalid_query');
    assertProblem(await client.pull('traces', 'limit=ten'), 400, 'invalid_query');
    assertProblem(await client.pull('traces', 'since=last-week'), 400, 'invalid_query');
    // A query that does not decode is a malformed URL, whichever parameter holds it, a known one or not.
    for (const query of ['after=%zz', 'limit=%zz', 'since=%E0%A4%A', 'foo=%zz'])
      assertProblem(await client.pull('traces', query), 400, 'invalid_request');
    assert.ok(service);
  });

  test('twenty clients uploading the same batch at once insert each row once', async ({ fixture }) => {
    const { client } = await soloService(fixture);
    const batch = Array.from({ length: 100 }, () => ledger());
    const replies = await Promise.all(Array.from({ length: 20 }, () => client.push('ledgers', batch)));
    for (const reply of replies) assert.is(reply.status, 200, reply.text);
    assert.is(
      replies.reduce((sum, reply) => sum + reply.json.inserted, 0),
      100,
    );
    assert.is(
      replies.reduce((sum, reply) => sum + reply.json.duplicates, 0),
      1900,
    );
    const pulled = await client.pullAll('ledgers');
    assert.is(pulled.length, 100);
    assert.is(new Set(pulled.map((item) => item.sha)).size, 100);
  });

  test('paging while others insert: every row once, none skipped', async ({ fixture }) => {
    const { client } = await soloService(fixture);
    const writers = 8;
    const perWriter = 6;
    const seen: string[] = [];
    let cursor = '';
    let writing = true;
    const puller = (async () => {
      // Keeps paging in small pages until the writers are done and a last page is empty.
      for (;;) {
        const done = !writing;
        const page = await client.pull('traces', `limit=7${cursor ? `&after=${cursor}` : ''}`);
        assert.is(page.status, 200, page.text);
        seen.push(...page.json.items.map((item: { id: string }) => item.id));
        cursor = page.json.next_cursor;
        if (done && !page.json.has_more) return;
      }
    })();
    const sent: string[] = [];
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let round = 0; round < perWriter; round++) {
          const items = Array.from({ length: 5 }, () => trace());
          sent.push(...items.map((item) => item.id));
          assert.is((await client.push('traces', items)).status, 200);
        }
      }),
    );
    writing = false;
    await puller;
    assert.is(seen.length, new Set(seen).size, 'no row twice');
    assert.equal([...seen].sort(), [...sent].sort(), 'no row skipped');
  });

  test('summaries, blobs and whoami can be switched off: they answer 404 as if absent', async ({ fixture }) => {
    const { client, service } = await soloService(fixture, { disableRoutes: ['summaries', 'blobs', 'whoami'] });
    assertProblem(await client.push('summaries', [summary()]), 404, 'not_found');
    assertProblem(await client.pull('summaries'), 404, 'not_found');
    assertProblem(await client.get('/api/v1/auth/whoami'), 404, 'not_found');
    assertProblem(await client.uploadBlob(Buffer.from('x')), 404, 'not_found');
    assert.is((await client.head(`/api/v1/blobs/${'a'.repeat(64)}`)).status, 404);
    assertProblem(await request(`${service.url}/gw/solo/p/api/v1/auth/whoami`), 404, 'not_found');
    assert.is((await client.push('traces', [trace()])).status, 200, 'the rest still works');
    await service.stop();
  });
}
