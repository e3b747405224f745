import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ledgerFiles } from '../../src/viewer/local/commit-detail.js';

/**
 * The files of a commit page, read from a ledger's record by the one function
 * the local viewer and the team view share: each file carries the ranges
 * reconcile re-attached by content hash (`metadata["dev.tracer"].recovered`).
 */
const record = (recovered: unknown) => ({
  files: [
    {
      path: 'src/sort.ts',
      conversations: [{ url: 'claude-code://session/s1', contributor: { type: 'ai' }, ranges: [{ start_line: 1, end_line: 5 }] }],
    },
    { path: 'docs/sort.md', conversations: [{ contributor: { type: 'unknown' }, ranges: [{ start_line: 1, end_line: 2 }] }] },
  ],
  metadata: { 'dev.tracer': { parents: [], lines: { ai: 5, human: 0 }, recovered } },
});

test('a file lists its recovered ranges; the others none', () => {
  const files = ledgerFiles(record({ 'src/sort.ts': [[1, 5]] }), () => null);
  assert.equal(
    files.map((file) => [file.path, file.recovered]),
    [
      ['src/sort.ts', [{ start_line: 1, end_line: 5 }]],
      ['docs/sort.md', []],
    ],
  );
});

test('a ledger without recovery, or with a malformed one, recovers nothing', () => {
  for (const recovered of [
    undefined,
    null,
    [],
    'src/sort.ts',
    { 'src/sort.ts': 'all' },
    {
      'src/sort.ts': [
        [5, 1],
        ['1', 2],
        [1.5, 3],
      ],
    },
  ]) {
    assert.equal(
      ledgerFiles(record(recovered), () => null).map((file) => file.recovered),
      [[], []],
      JSON.stringify(recovered),
    );
  }
});

test.run();
