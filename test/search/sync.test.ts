import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addConversation, addLedger, addTrace, machine } from '../helpers/sync-fixtures.js';
import { tokenWithRole } from '../privacy/support.js';
import { INDEX_FILE } from '../../src/search/local-index.js';

/**
 * The local index follows pulls (the search-index plugin): a teammate's pulled
 * conversation is in it before any search runs, and a conversation forgotten
 * on the remote leaves it with the pull that applies the tombstone.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

function claudeTranscript(id: string, prompt: string): Buffer {
  const row = (type: string, content: unknown) =>
    JSON.stringify({ type, sessionId: id, uuid: `${type}-${id}`, timestamp: '2026-01-05T10:00:00.000Z', message: { role: type, content } });
  return Buffer.from(`${row('user', prompt)}\n${row('assistant', [{ type: 'text', text: 'On it.' }])}\n`);
}

/** Rows of the index matching a word, read straight from the file: no search runs (it would bring the index level itself). */
function indexed(dir: string, word: string): number {
  const db = new Sqlite(join(dir, INDEX_FILE), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM docs WHERE docs MATCH ?').get(`"${word}"`) as { n: number }).n;
  } finally {
    db.close();
  }
}

test("a pull brings a teammate's conversation into an existing index; a forget on the remote takes it out at the next pull", async () => {
  const service = await startService();
  await service.createProject('acme', 'web');
  const token = await tokenWithRole(service, { org: 'acme', project: 'web', name: 'ada', role: 'admin' });
  const a = await machine({ remoteUrl: `${service.url}/acme/web`, token });
  const b = await machine({ remoteUrl: `${service.url}/acme/web`, token });

  // B has an index already (empty): the plugin keeps existing indexes only.
  const first = await b.main(['search', 'anything', '--json']);
  assert.is(first.code, 0, first.stderr);
  assert.ok(existsSync(join(b.dir, INDEX_FILE)));

  addConversation(a, 'conv-axolotl', claudeTranscript('conv-axolotl', 'Teach the parser about axolotl dates'));
  addLedger(a, [addTrace(a, { agent: 'claude-code', conversation_id: 'conv-axolotl', model: 'claude-sonnet-4-5' }).id]);
  const push = await a.main(['push']);
  assert.is(push.code, 0, push.stderr);

  const pull = await b.main(['pull']);
  assert.is(pull.code, 0, pull.stderr);
  assert.is(indexed(b.dir, 'axolotl'), 1, 'indexed by the pull, before any search');
  const found = JSON.parse((await b.main(['search', 'axolotl', '--json'])).stdout).hits;
  assert.equal(
    found.map((hit: any) => [hit.conversation_id, hit.agent, hit.model]),
    [['conv-axolotl', 'claude-code', 'claude-sonnet-4-5']],
  );

  const forget = await a.main(['forget', '--conversation', 'conv-axolotl', '--yes']);
  assert.is(forget.code, 0, forget.stderr);
  const again = await b.main(['pull']);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stderr, /forgotten_on_remote|forgot/);
  assert.is(indexed(b.dir, 'axolotl'), 0, 'gone from the index with the pull that applied the tombstone');
});

test.run();
