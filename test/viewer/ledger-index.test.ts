import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerIndex } from '../../src/viewer/local/ledger-index.js';
import { cleanup, tempDir } from '../helpers/cli.js';

test.after(cleanup);

const files = (conversation: string) => [
  {
    path: 'src/a.ts',
    contributor: { type: 'mixed' },
    conversations: [
      {
        url: `claude-code://session/${conversation}`,
        contributor: { type: 'ai', model_id: 'm1' },
        ranges: [{ start_line: 1, end_line: 4 }],
      },
      { contributor: { type: 'human' }, ranges: [{ start_line: 5, end_line: 5 }] },
    ],
  },
];

test('ledgers of both shapes (today flat, after issue 13 under `record`), links, rewrites and summaries', async () => {
  const dir = tempDir('viewer-ledgers-');
  const paths = {
    ledgers: join(dir, 'ledgers.jsonl'),
    commitLinks: join(dir, 'commit-links.jsonl'),
    summaries: join(dir, 'session-summaries.jsonl'),
  };
  const flat = { sha: 's1', ts: '2025-01-01T00:00:00Z', commit: 'c1', vcs: { type: 'git', revision: 'c1' }, files: files('conv-1') };
  const wrapped = {
    sha: 's2',
    ts: '2025-01-02T00:00:00Z',
    commit: 'c2',
    trace_ids: [],
    record: { version: '0.1', vcs: { type: 'git', revision: 'c2' }, files: files('conv 2') },
  };
  const amended = { sha: 's3', ts: '2025-01-03T00:00:00Z', commit: 'c3', record: { files: files('conv 2') } };
  writeFileSync(paths.ledgers, [flat, wrapped, amended].map((line) => JSON.stringify(line)).join('\n') + '\n{"torn":');
  writeFileSync(paths.commitLinks, `${JSON.stringify({ commit: 'c3', session_ids: ['conv 2'], rewritten_from: 'c2' })}\n`);
  writeFileSync(
    paths.summaries,
    [
      { ts: '1', conversation_url: 'claude-code://session/conv%202', summary: 'old' },
      { ts: '2', conversation_url: 'claude-code://session/conv%202', summary: 'new' },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  const index = new LedgerIndex(paths);
  await index.refresh();
  assert.equal(
    index.current().map((commit) => [commit.sha, commit.lines, commit.agents, commit.models, commit.conversationIds]),
    [
      ['c3', { ai: 4, human: 1, mixed: 0 }, ['claude-code'], ['m1'], ['conv 2']],
      ['c1', { ai: 4, human: 1, mixed: 0 }, ['claude-code'], ['m1'], ['conv-1']],
    ],
    'c2 was replaced by an amend; the torn last line is skipped',
  );
  assert.equal(index.commitsOf('conv 2'), ['c3']);
  assert.is(index.summaryOf('conv 2'), 'new');
  assert.is(index.ledgers.unreadable, 1);
});

test.run();
