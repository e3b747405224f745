import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attributeLine } from '../../src/attribution/blame.js';
import { PorcelainParser } from '../../src/attribution/blame-porcelain.js';
import { parseLog, tallyCommit } from '../../src/attribution/commit-lines.js';
import { lineContributor, readLedgerLine } from '../../src/attribution/ledger-view.js';

const C1 = 'a'.repeat(40);
const C2 = 'b'.repeat(40);

/** The Agent Trace record both ways a ledgers.jsonl line carries it: at the top (today), under `record` (issue 13). */
const RECORD = {
  version: '0.1',
  files: [
    {
      path: 'src/a.ts',
      conversations: [
        {
          url: 'claude-code://session/s1',
          contributor: { type: 'ai', model_id: 'anthropic/claude-sonnet-4-5' },
          ranges: [
            { start_line: 1, end_line: 3 },
            { start_line: 8, end_line: 8 },
          ],
        },
        { url: 'cursor://conversation/c1', contributor: { type: 'mixed' }, ranges: [{ start_line: 5, end_line: 5 }] },
        { contributor: { type: 'human' }, ranges: [{ start_line: 4, end_line: 4 }] },
      ],
    },
  ],
};

test('a ledger line is read the same with the record at the top or under "record"', () => {
  const flat = readLedgerLine({ sha: 'x1', ts: 't', commit: C1, trace_ids: [], ...RECORD });
  const nested = readLedgerLine({
    sha: 'x1',
    ts: 't',
    commit: C1,
    trace_ids: [],
    record: { ...RECORD, vcs: { type: 'git', revision: C1 } },
  });
  assert.ok(flat && nested);
  assert.equal(nested, flat);
  const types = [1, 2, 3, 4, 5, 6, 7, 8].map((line) => lineContributor(flat!, 'src/a.ts', line));
  assert.equal(
    types.map((who) => [who.type, who.agent, who.model_id]),
    [
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
      ['human', null, null],
      ['mixed', 'cursor', null],
      ['human', null, null],
      ['human', null, null],
      ['ai', 'claude-code', 'anthropic/claude-sonnet-4-5'],
    ],
    'a line no range covers is a person’s',
  );
  assert.is(lineContributor(flat!, 'other.ts', 1).type, 'human');
});

test('unknown shapes are skipped, never guessed', () => {
  assert.is(readLedgerLine(null), undefined);
  assert.is(readLedgerLine({ files: [] }), undefined, 'no commit');
  const odd = readLedgerLine({
    commit: C1,
    files: [
      {
        path: 'x',
        conversations: [
          { contributor: { type: 'robot' }, ranges: [{ start_line: 1, end_line: 2 }] },
          { contributor: { type: 'ai' }, ranges: [{ start_line: 3, end_line: 1 }, { start_line: 'a' }] },
        ],
      },
    ],
  });
  assert.equal(odd!.files.get('x'), []);
});

test('a range with its own contributor wins over its conversation', () => {
  const ledger = readLedgerLine({
    commit: C1,
    files: [
      {
        path: 'x',
        conversations: [
          {
            url: 'codex://session/s',
            contributor: { type: 'ai', model_id: 'openai/gpt-5-codex' },
            ranges: [{ start_line: 1, end_line: 1, contributor: { type: 'mixed' } }],
          },
        ],
      },
    ],
  })!;
  assert.equal(lineContributor(ledger, 'x', 1), { type: 'mixed', model_id: null, url: 'codex://session/s', agent: 'codex', traces: [] });
});

test('blame lines map onto the ledger of the commit that introduced them, at their line there', () => {
  const ledger = readLedgerLine({ commit: C1, ...RECORD })!;
  const ledgers = new Map([[C1, ledger]]);
  const base = { author: 'A', authorTime: 0, content: 'x' };
  assert.is(attributeLine({ ...base, line: 40, commit: C1, origPath: 'src/a.ts', origLine: 2 }, ledgers).type, 'ai');
  assert.is(attributeLine({ ...base, line: 2, commit: C1, origPath: 'src/old-name.ts', origLine: 2 }, ledgers).type, 'human');
  assert.is(attributeLine({ ...base, line: 2, commit: C2, origPath: 'src/a.ts', origLine: 2 }, ledgers).type, 'unknown');
  assert.equal(attributeLine({ ...base, line: 3, commit: '0'.repeat(40), origPath: 'src/a.ts', origLine: 3 }, ledgers), {
    line: 3,
    commit: null,
    type: 'uncommitted',
    agent: null,
    model_id: null,
    conversation_url: null,
    content: 'x',
  });
});

test('porcelain: details once per commit, filename whenever git gives it, quoted names, tabs in content', () => {
  const parser = new PorcelainParser();
  const out = [
    `${C1} 1 1 2`,
    'author Ann',
    'author-time 1700000000',
    'summary one',
    'filename "sp\\303\\251cial name.ts"',
    '\tfirst\tline',
    `${C1} 2 2`,
    '\tsecond',
    `${C2} 7 3 1`,
    'author Bob',
    'author-time 1700000100',
    'previous 0123 old.ts',
    'filename old.ts',
    '\tthird',
  ].join('\n');
  // Fed in two pieces cut mid-line, as a pipe delivers it.
  parser.push(out.slice(0, 50));
  parser.push(`${out.slice(50)}\n`);
  assert.equal(
    parser.lines.map((line) => [line.line, line.commit[0], line.origPath, line.origLine, line.author, line.content]),
    [
      [1, 'a', 'spécial name.ts', 1, 'Ann', 'first\tline'],
      [2, 'a', 'spécial name.ts', 2, 'Ann', 'second'],
      [3, 'b', 'old.ts', 7, 'Bob', 'third'],
    ],
  );
  assert.is(parser.binary, false);
});

test('git log -z --numstat: renames count the new path, binary files nothing, merges have no diff', () => {
  const log =
    `\u0001${C1} ${C2}\u0002Ann\u0002add things\u0000\n3\t0\ta.ts\u0000-\t-\timg.png\u00001\t0\t\u0000old.ts\u0000new.ts\u0000` +
    `\u0001${C2} ${C1} ${'c'.repeat(40)}\u0002Bob\u0002Merge\u0000`;
  const [first, merge] = parseLog(log);
  assert.equal(first!.parents, [C2]);
  assert.is(first!.author, 'Ann');
  assert.equal(
    [...first!.added!],
    [
      ['a.ts', 3],
      ['new.ts', 1],
    ],
  );
  assert.is(merge!.added, undefined);
  assert.is(merge!.subject, 'Merge');
});

test('a ledger that covers more than git added (written without rename detection) is capped by git’s count, agents first', () => {
  const ledger = readLedgerLine({
    commit: C1,
    files: [
      {
        path: 'moved.ts',
        conversations: [
          { url: 'codex://session/s', contributor: { type: 'ai' }, ranges: [{ start_line: 10, end_line: 11 }] },
          { contributor: { type: 'human' }, ranges: [{ start_line: 1, end_line: 9 }] },
        ],
      },
    ],
  })!;
  const renamedWithEdits = tallyCommit({ commit: C1, parents: [C2], author: 'A', subject: 's', added: new Map([['moved.ts', 3]]) }, ledger);
  assert.equal(renamedWithEdits.lines, { ai: 2, human: 1, mixed: 0, unknown: 0 });
  const pureRename = tallyCommit({ commit: C1, parents: [C2], author: 'A', subject: 's', added: new Map() }, ledger);
  assert.equal(pureRename.lines, { ai: 0, human: 0, mixed: 0, unknown: 0 });
  const merge = tallyCommit({ commit: C1, parents: [C2, C2], author: 'A', subject: 's', added: undefined }, ledger);
  assert.equal(merge.lines, { ai: 2, human: 9, mixed: 0, unknown: 0 }, 'a merge counts what its ledger records');
  const noLedger = tallyCommit({ commit: C1, parents: [C2], author: 'A', subject: 's', added: new Map([['moved.ts', 3]]) }, undefined);
  assert.equal(noLedger.lines, { ai: 0, human: 0, mixed: 0, unknown: 3 });
});

test.run();
