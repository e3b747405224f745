import { spawn } from 'node:child_process';
import fs, { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TracerError } from '../../src/core/errors.js';
import { appendRecord, appendRecords, readRecords, type CorruptLine } from '../../src/store/jsonl.js';

const root = mkdtempSync(join(tmpdir(), 'tracer-jsonl-'));
let counter = 0;
const freshPath = () => join(root, `case-${(counter += 1)}`, 'traces.jsonl');
test.after(() => rmSync(root, { recursive: true, force: true }));

async function readAll<T = any>(path: string, chunkSize?: number): Promise<{ records: T[]; corrupt: CorruptLine[] }> {
  const corrupt: CorruptLine[] = [];
  const records: T[] = [];
  for await (const record of readRecords<T>(path, { chunkSize, onCorrupt: (line) => corrupt.push(line) })) records.push(record);
  return { records, corrupt };
}

/** Counts write(2) calls made through node:fs while `run` executes. */
function countWrites(run: () => void): number {
  const original = fs.writeSync;
  let calls = 0;
  fs.writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    calls += 1;
    return (original as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
  try {
    run();
  } finally {
    fs.writeSync = original;
    syncBuiltinESMExports();
  }
  return calls;
}

test('a record is appended with exactly one write, as one line, whatever its size', () => {
  const path = freshPath();
  const big = { id: 'big', pad: 'x'.repeat(200 * 1024), lines: 'a\nb\u2028c\r\n' };
  assert.is(
    countWrites(() => appendRecord(path, { id: 'small' })),
    1,
  );
  assert.is(
    countWrites(() => appendRecord(path, big)),
    1,
  );
  assert.is(
    countWrites(() => appendRecords(path, [{ id: 'one' }, { id: 'two' }])),
    1,
    'a batch is one write too',
  );
  const lines = readFileSync(path, 'utf8').split('\n');
  assert.is(lines.length, 5, 'four records, each ending in a newline');
  assert.is(lines[4], '');
  assert.equal(JSON.parse(lines[1]!), big);
});

test('appending creates the folder and the file; nothing is written for an empty batch', () => {
  const path = freshPath();
  appendRecords(path, []);
  assert.not.ok(existsSync(path));
  appendRecord(path, { id: 'a' });
  assert.is(readFileSync(path, 'utf8'), '{"id":"a"}\n');
});

test('several processes appending at once never interleave (records over 64 KiB included)', async () => {
  const path = freshPath();
  appendRecord(path, { writer: 'parent', seq: 0 });
  const worker = fileURLToPath(new URL('./fixtures/append-worker.ts', import.meta.url));
  const writers = ['w1', 'w2', 'w3', 'w4'];
  const perWriter = 500;
  const children = writers.map((name) =>
    spawn(process.execPath, ['--import', 'tsx', worker, path, name, String(perWriter)], { stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const said = (child: (typeof children)[number], word: string) =>
    new Promise<void>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes(`${word}\n`)) resolve();
      });
      child.on('exit', (code) =>
        text.includes(`${word}\n`) ? resolve() : reject(new Error(`writer exited ${code} before saying ${word}`)),
      );
    });
  await Promise.all(children.map((child) => said(child, 'ready')));
  const done = children.map((child) => said(child, 'done'));
  for (const child of children) child.stdin!.end('go\n');
  await Promise.all(done);

  const { records, corrupt } = await readAll<{ writer: string; seq: number; size: number; pad?: string }>(path);
  assert.equal(corrupt, [], 'every line parses');
  assert.is(records.length, 1 + writers.length * perWriter);
  let large = 0;
  for (const name of writers) {
    const own = records.filter((record) => record.writer === name);
    assert.equal(
      own.map((record) => record.seq),
      [...Array(perWriter).keys()],
      `${name}: every record once, in its own order`,
    );
    for (const record of own) {
      assert.is(record.pad!.length, record.size);
      if (record.size > 64 * 1024) large += 1;
    }
  }
  assert.is(large, writers.length * 10);
  assert.ok(readFileSync(path).at(-1) === 0x0a, 'the file ends on a newline');
});

test('reading streams across chunk borders, multi-byte characters split anywhere', async () => {
  const path = freshPath();
  const written = [
    { id: 1, text: '\u{1F600}\u{1F600}\u{1F600}' },
    { id: 2, text: 'é'.repeat(17) },
    { id: 3, text: '' },
    { id: 4, text: 'x'.repeat(100) },
    { id: 5, nested: { list: [1, 2, { deep: '中文' }] } },
  ];
  appendRecords(path, written);
  for (const chunkSize of [1, 2, 3, 5, 7, 64, 1 << 20]) {
    const { records, corrupt } = await readAll(path, chunkSize);
    assert.equal(records, written, `chunkSize ${chunkSize}`);
    assert.equal(corrupt, []);
  }
});

test('reading yields before the whole file is read: a record appended mid-read is seen', async () => {
  const path = freshPath();
  appendRecords(
    path,
    Array.from({ length: 2000 }, (_, index) => ({ index })),
  );
  const iterator = readRecords<{ index?: number; marker?: boolean }>(path, { chunkSize: 16 })[Symbol.asyncIterator]();
  const first = await iterator.next();
  assert.equal(first.value, { index: 0 });
  // Had the reader loaded the file before yielding, this line could not reach it.
  appendRecord(path, { marker: true });
  let last: { index?: number; marker?: boolean } | undefined;
  let count = 1;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    last = next.value;
    count += 1;
  }
  assert.is(count, 2001);
  assert.equal(last, { marker: true });
});

test('a torn last line is reported (torn=true), skipped, kept, and the next append starts a fresh line', async () => {
  const path = freshPath();
  appendRecords(path, [{ id: 'a' }, { id: 'b' }]);
  appendFileSync(path, '{"id":"torn","pad":"xx');
  const before = readFileSync(path);

  const first = await readAll(path, 4);
  assert.equal(first.records, [{ id: 'a' }, { id: 'b' }]);
  assert.is(first.corrupt.length, 1);
  assert.is(first.corrupt[0]!.torn, true);
  assert.is(first.corrupt[0]!.line, 3);
  assert.is(first.corrupt[0]!.offset, '{"id":"a"}\n{"id":"b"}\n'.length);
  assert.is(first.corrupt[0]!.path, path);
  assert.ok(readFileSync(path).equals(before), 'reading changes nothing on disk');

  appendRecord(path, { id: 'c' });
  assert.is(readFileSync(path, 'utf8'), `${before.toString('utf8')}\n{"id":"c"}\n`, 'torn bytes kept, new record on its own line');
  const second = await readAll(path);
  assert.equal(second.records, [{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
  assert.is(second.corrupt.length, 1);
  assert.is(second.corrupt[0]!.torn, false, 'no longer the last line');
  assert.is(second.corrupt[0]!.line, 3);
});

test('a complete last line without its newline still parses; the next append adds the newline', async () => {
  const path = freshPath();
  appendRecord(path, { id: 'a' });
  appendFileSync(path, '{"id":"b"}');
  assert.equal((await readAll(path)).records, [{ id: 'a' }, { id: 'b' }]);
  appendRecord(path, { id: 'c' });
  assert.is(readFileSync(path, 'utf8'), '{"id":"a"}\n{"id":"b"}\n{"id":"c"}\n');
});

test('a corrupt line in the middle is skipped and reported with its line and byte offset', async () => {
  const path = freshPath();
  appendRecord(path, { id: 'é' });
  appendFileSync(path, 'not json at all\n{"unterminated": \n');
  appendRecord(path, { id: 'z' });
  const { records, corrupt } = await readAll(path, 3);
  assert.equal(records, [{ id: 'é' }, { id: 'z' }]);
  assert.equal(
    corrupt.map(({ line, offset, torn, preview }) => ({ line, offset, torn, preview })),
    [
      { line: 2, offset: Buffer.byteLength('{"id":"é"}\n'), torn: false, preview: 'not json at all' },
      { line: 3, offset: Buffer.byteLength('{"id":"é"}\nnot json at all\n'), torn: false, preview: '{"unterminated": ' },
    ],
  );
});

test('mayMatch skips refused lines unparsed, without reporting them; accepted lines still parse or are reported', async () => {
  const path = freshPath();
  appendRecords(path, [
    { path: 'src/a.ts', n: 1 },
    { path: 'src/b.ts', n: 2 },
  ]);
  appendFileSync(path, 'junk mentioning a.ts\njunk elsewhere\n');
  appendRecord(path, { path: 'src/a.ts', n: 3 });
  const corrupt: CorruptLine[] = [];
  const seen: unknown[] = [];
  for await (const record of readRecords(path, { mayMatch: (line) => line.includes('a.ts'), onCorrupt: (line) => corrupt.push(line) }))
    seen.push(record);
  assert.equal(seen, [
    { path: 'src/a.ts', n: 1 },
    { path: 'src/a.ts', n: 3 },
  ]);
  assert.equal(
    corrupt.map((line) => line.preview),
    ['junk mentioning a.ts'],
    'only the accepted junk line is parsed, hence reported',
  );
});

test('lines edited on Windows (CRLF) still parse', async () => {
  const path = freshPath();
  appendRecord(path, { id: 'a' });
  appendFileSync(path, '{"id":"b"}\r\n{"id":"c"}\r\n');
  assert.equal(await readAll(path), { records: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], corrupt: [] });
});

test('blank lines are skipped silently; an empty or missing file yields nothing and is not created', async () => {
  const path = freshPath();
  appendRecord(path, { id: 'a' });
  appendFileSync(path, '\n  \n');
  appendRecord(path, { id: 'b' });
  const read = await readAll(path);
  assert.equal(read.records, [{ id: 'a' }, { id: 'b' }]);
  assert.equal(read.corrupt, []);

  const empty = freshPath();
  appendRecords(empty, [{ id: 'x' }]);
  writeFileSync(empty, '');
  assert.equal(await readAll(empty), { records: [], corrupt: [] });

  const missing = join(root, 'nowhere', 'ledgers.jsonl');
  assert.equal(await readAll(missing), { records: [], corrupt: [] });
  assert.not.ok(existsSync(missing));
});

test('an append that cannot be written fails with state_unwritable', () => {
  const blocker = join(root, 'a-regular-file');
  writeFileSync(blocker, 'not a folder');
  try {
    appendRecord(join(blocker, 'traces.jsonl'), { id: 'a' });
    assert.unreachable('should throw');
  } catch (error) {
    assert.instance(error, TracerError);
    assert.is((error as TracerError).code, 'state_unwritable');
    assert.ok((error as TracerError).message.includes(blocker));
  }
  assert.is(readFileSync(blocker, 'utf8'), 'not a folder');
});

test.run();
