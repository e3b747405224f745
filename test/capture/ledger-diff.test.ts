import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAddedLines, unquoteC } from '../../src/capture/ledger/diff-parse.js';

const added = (diff: string) =>
  Object.fromEntries([...parseAddedLines(diff)].map(([path, lines]) => [path, lines.map((line) => [line.line, line.text])]));

test('added lines carry their new-file line numbers across several hunks', () => {
  const diff = [
    'diff --git a/f.ts b/f.ts',
    'index 1111111..2222222 100644',
    '--- a/f.ts',
    '+++ b/f.ts',
    '@@ -1,0 +2,2 @@',
    '+two',
    '+three',
    '@@ -9 +11 @@',
    '-old',
    '+eleven',
    '',
  ].join('\n');
  assert.equal(added(diff), {
    'f.ts': [
      [2, 'two'],
      [3, 'three'],
      [11, 'eleven'],
    ],
  });
});

test('an added line that looks like a header is still a line of the hunk', () => {
  const diff = [
    'diff --git a/x b/x',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/x',
    '@@ -0,0 +1,3 @@',
    '+++ not a header',
    '+diff --git a/y b/y',
    '+@@ -1 +1 @@',
    '',
  ].join('\n');
  assert.equal(added(diff), {
    x: [
      [1, '++ not a header'],
      [2, 'diff --git a/y b/y'],
      [3, '@@ -1 +1 @@'],
    ],
  });
});

test('deleted, binary, submodule and symlink entries add nothing', () => {
  const diff = [
    'diff --git a/gone b/gone',
    'deleted file mode 100644',
    '--- a/gone',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-bye',
    'diff --git a/img.png b/img.png',
    'new file mode 100644',
    'Binary files /dev/null and b/img.png differ',
    'diff --git a/sub b/sub',
    'new file mode 160000',
    '--- /dev/null',
    '+++ b/sub',
    '@@ -0,0 +1 @@',
    '+Subproject commit 0123456789012345678901234567890123456789',
    'diff --git a/link b/link',
    'new file mode 120000',
    '--- /dev/null',
    '+++ b/link',
    '@@ -0,0 +1 @@',
    '+target',
    '\\ No newline at end of file',
    '',
  ].join('\n');
  assert.equal(added(diff), {});
});

test('quoted names and names with a space (git adds a tab after them) come back as written', () => {
  const diff = [
    'diff --git "a/na\\303\\257ve\\t\\"q\\".txt" "b/na\\303\\257ve\\t\\"q\\".txt"',
    '--- /dev/null',
    '+++ "b/na\\303\\257ve\\t\\"q\\".txt"',
    '@@ -0,0 +1 @@',
    '+x',
    'diff --git a/with space b/with space',
    '--- /dev/null',
    '+++ b/with space\t',
    '@@ -0,0 +1 @@',
    '+y',
    '',
  ].join('\n');
  assert.equal(added(diff), { 'naïve\t"q".txt': [[1, 'x']], 'with space': [[1, 'y']] });
  assert.is(unquoteC('"b/\\\\back\\nslash"'), 'b/\\back\nslash');
});

test.run();
