// tallyCommit (src/attribution/commit-lines.ts): a conversation that wrote several files of a
// commit is one entry with all its lines, whatever objects the ledger's files hold for it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tallyCommit } from '../../src/attribution/commit-lines.js';
import type { ConversationView, LedgerView } from '../../src/attribution/ledger-view.js';

const conversation = (): ConversationView => ({
  type: 'ai',
  model_id: 'anthropic/claude-sonnet-4-5',
  url: 'claude-code://session/s1',
  agent: 'claude-code',
  traces: [],
});

test('one conversation that wrote two files is one entry with the lines of both', () => {
  const ledger: LedgerView = {
    commit: 'c'.repeat(40),
    sha: null,
    ts: null,
    // Each file's ranges hold a view of their own of the same conversation, as a ledger read from JSON does.
    files: new Map([
      ['a.ts', [{ start: 1, end: 3, hash: null, conversation: conversation() }]],
      ['b.ts', [{ start: 1, end: 2, hash: null, conversation: conversation() }]],
    ]),
    conversations: [conversation()],
  };
  const diff = {
    commit: 'c'.repeat(40),
    parents: [],
    author: 'A',
    subject: 's',
    added: new Map([
      ['a.ts', 3],
      ['b.ts', 2],
    ]),
  };
  const tally = tallyCommit(diff, ledger);
  assert.equal(
    tally.conversations.map(({ conversation, lines }) => [conversation.url, lines]),
    [['claude-code://session/s1', 5]],
  );
  assert.is(tally.lines.ai, 5);
});

test.run();
