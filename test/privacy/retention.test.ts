import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { freshPostgresSchema, onPostgres, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { clientFor, commitLink, conversation, ledger, summary, trace } from '../server/http.js';
import { spawnServe, signIn } from './support.js';

/**
 * Issue 31, retention: `tracer serve --retain conversations=90d,summaries=90d`
 * removes expired content (by the row's ts) in the background, one run shortly
 * after start then on its interval, a log line per run, as tombstones;
 * attribution and traces stay unless named. Per project through the API.
 */
const OLD = '2024-01-01T00:00:00.000Z';
const secret = 'retention-secret-0123456789';

function retentionSuite(backend: 'sqlite' | 'postgres') {
  const test = suite(`retention (${backend})`);
  test.after(async () => {
    await stopAllServices();
    cleanup();
  });

  test('expired transcripts and summaries go in the background; traces, ledgers and new rows stay; projects set their own', async () => {
    const database = backend === 'postgres' ? ['--database', await freshPostgresSchema()] : [];
    const serve = await spawnServe(
      [
        ...database,
        '--retain',
        'conversations=90d,summaries=90d',
        '--retention-delay-ms',
        '1500',
        '--retention-interval-ms',
        '1000',
        '--log-level',
        'info',
      ],
      { TRACER_ADMIN_SECRET: secret },
    );
    try {
      assert.ok(serve.url, serve.output().stderr);
      assert.match(serve.output().stdout, /retaining conversations 90d, summaries 90d/);
      const service = { url: serve.url! } as ServiceHandle;
      const admin = (path: string, body: unknown) =>
        fetch(`${serve.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      for (const project of ['web', 'api']) await admin('/api/v1/admin/projects', { org_slug: 'acme', project_slug: project });
      const tokenOf = async (project: string, role: string) =>
        (
          (await (
            await admin('/api/v1/admin/tokens', { org_slug: 'acme', project_slug: project, name: `${project}-${role}`, role })
          ).json()) as { token: string }
        ).token;
      const web = clientFor(service, await tokenOf('web', 'admin'), 'acme', 'web');
      const api = clientFor(service, await tokenOf('api', 'admin'), 'acme', 'api');
      const now = new Date().toISOString();
      for (const client of [web, api]) {
        const replies = [
          await client.push('conversations', [
            conversation(Buffer.from('old transcript\n'), true, { conversation_id: 'old', ts: OLD }),
            conversation(Buffer.from('new transcript\n'), true, { conversation_id: 'new', ts: now }),
          ]),
          await client.push('summaries', [summary({ conversation_id: 'old', ts: OLD }), summary({ conversation_id: 'new', ts: now })]),
          await client.push('traces', [trace({ conversation_id: 'old', ts: OLD })]),
          await client.push('ledgers', [ledger({ ts: OLD })]),
          await client.push('commit-links', [commitLink({ ts: OLD })]),
        ];
        for (const reply of replies) assert.is(reply.status, 200, reply.text);
      }
      // A project's own policy: api also drops its traces after 30 days.
      const set = await fetch(`${serve.url}/api/v1/retention`, {
        method: 'PUT',
        headers: { ...api.headers(), 'content-type': 'application/json' },
        body: JSON.stringify({ retain: { traces: '30d' } }),
      });
      assert.is(set.status, 200, await set.clone().text());
      assert.equal(((await set.json()) as { effective: unknown }).effective, { conversations: '90d', summaries: '90d', traces: '30d' });
      const badPolicy = await fetch(`${serve.url}/api/v1/retention`, {
        method: 'PUT',
        headers: { ...api.headers(), 'content-type': 'application/json' },
        body: JSON.stringify({ retain: { traces: 'soon' } }),
      });
      assert.is(badPolicy.status, 422);
      const setUp = serve.output().stdout.length;

      await serve.waitFor(/retention run: removed [1-9]\d* rows/);
      // A run that began before the pushes or api's policy above were in (a loaded machine takes longer than
      // --retention-delay-ms to get here) removed less than they ask for: the second run that ends after
      // them began after them.
      await serve.waitFor(/retention run: removed[^]*retention run: removed/, 30_000, setUp);
      for (const [client, traces] of [
        [web, 1],
        [api, 0],
      ] as const) {
        const ids = async (family: string) => (await client.pullAll(family)).map((item) => item.conversation_id ?? item.id);
        assert.equal(await ids('conversations'), ['new']);
        assert.equal(
          (await client.pullAll('summaries')).map((item) => item.conversation_id),
          ['new'],
        );
        assert.is((await client.pullAll('traces')).length, traces);
        assert.is((await client.pullAll('ledgers')).length, 1, 'attribution stays');
        assert.is((await client.pullAll('commit-links')).length, 1);
        const stones = (await client.get('/api/v1/tombstones')).json.items as Array<{ reason: string; by: string }>;
        assert.ok(stones.length >= 2 && stones.every((stone) => stone.reason === 'retention' && stone.by === 'retention'));
      }
      // The team view says the transcript was forgotten by retention (the session's traces stay).
      const cookie = await signIn(serve.url, web.headers().authorization!.slice('Bearer '.length));
      const session = (await (await fetch(`${serve.url}/ui/api/p/acme/web/sessions/old`, { headers: { cookie } })).json()) as {
        forgotten: { reason: string; by: string } | null;
        has_transcript: boolean;
      };
      assert.equal(session.forgotten?.reason, 'retention');
      assert.is(session.has_transcript, false);
      // One log line per run: the next run (1 s later) finds nothing left and says so.
      assert.match(await serve.waitFor(/retention run: removed \d+ rows/, 30_000, serve.output().stdout.length), /removed 0 rows/);
      const audit = (await web.get('/api/v1/audit')).json.entries.map((entry: { entry: { action: string } }) => entry.entry.action);
      // Every run is audited before it removes anything, the one that found nothing too; what a run removed follows.
      assert.ok(audit.filter((action: string) => action === 'retention.run').length >= 2, audit.join(' '));
      assert.ok(audit.includes('retention.done'), audit.join(' '));
      assert.ok(audit.indexOf('retention.run') < audit.indexOf('retention.done'), audit.join(' '));
    } finally {
      await serve.stop();
    }
  });

  test('a --retain that is not <family>=<age> stops the start with one sentence', async () => {
    const serve = await spawnServe(['--retain', 'conversations=forever'], {});
    assert.is(serve.url, undefined);
    assert.is(await serve.exited, 2);
    assert.match(serve.output().stderr, /\(invalid_retention\)/);
    const unknown = await spawnServe(['--retain', 'transcripts=90d'], {});
    assert.is(await unknown.exited, 2);
    assert.match(unknown.output().stderr, /no family of this service/);
  });
  return test;
}

retentionSuite('sqlite').run();
await onPostgres('retention on PostgreSQL', () => retentionSuite('postgres').run());
