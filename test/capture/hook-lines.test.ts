import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseApplyPatch } from '../../src/capture/hook/apply-patch.js';
import { tracedFile } from '../../src/capture/hook/written-lines.js';
import { lineHash } from '../../src/capture/trace-record.js';

const spans = (file: ReturnType<typeof tracedFile>) => file?.ranges.map((range) => [range.start_line, range.end_line]);

test("an edit inside a line makes the whole line the agent's", () => {
  const file = tracedFile('a.ts', 'const a = 1;\nconst total = a + 2;\n', [{ text: 'total' }]);
  assert.equal(spans(file), [[2, 2]]);
  assert.equal(file!.line_hashes, [lineHash('const total = a + 2;')]);
});

test('CRLF files: ranges and hashes ignore the carriage returns', () => {
  const file = tracedFile('a.txt', 'one\r\ntwo\r\nthree\r\n', [{ text: 'two\r\nthree' }]);
  assert.equal(spans(file), [[2, 3]]);
  assert.equal(file!.line_hashes, [lineHash('two'), lineHash('three')]);
});

test('whole-line fragments match only at line boundaries', () => {
  const file = tracedFile('v.txt', 'x1.1.0\n1.1.0\n', [{ text: '1.1.0', wholeLines: true }]);
  assert.equal(spans(file), [[2, 2]]);
});

test('overlapping fragments merge into one range; blank-only fragments count for nothing', () => {
  const file = tracedFile('a.txt', 'a\nb\nc\nd\n', [{ text: 'a\nb\nc' }, { text: 'b\nc\nd' }, { text: '\n\n' }]);
  assert.equal(spans(file), [[1, 4]]);
  assert.is(tracedFile('a.txt', 'a\n\n\nb\n', [{ text: '\n\n' }]), undefined);
});

test('text no longer in the file (or a file that is gone) still counts by its own lines, without a range', () => {
  const moved = tracedFile('a.txt', 'reformatted\n', [{ text: 'original  line\nsecond\n' }]);
  assert.equal(moved, { path: 'a.txt', ranges: [], line_hashes: [lineHash('original  line'), lineHash('second')] });
  assert.equal(tracedFile('gone.txt', undefined, [{ text: 'x\n' }]), { path: 'gone.txt', ranges: [], line_hashes: [lineHash('x')] });
});

test('apply_patch: added files, "+" runs of updates, moves, deletions left out', () => {
  const writes = parseApplyPatch(
    [
      '*** Begin Patch',
      '*** Add File: new.txt',
      '+hello',
      '+world',
      '*** Delete File: old.txt',
      '*** Update File: a.py',
      '*** Move to: b.py',
      '@@ def f():',
      ' keep',
      '-gone',
      '+came',
      '+in',
      ' keep',
      '+tail',
      '*** End Patch',
    ].join('\n'),
  );
  assert.equal(writes, [
    { filePath: 'new.txt', fragments: [{ text: 'hello\nworld', wholeLines: true }] },
    {
      filePath: 'b.py',
      fragments: [
        { text: 'came\nin', wholeLines: true },
        { text: 'tail', wholeLines: true },
      ],
    },
  ]);
});

test.run();
