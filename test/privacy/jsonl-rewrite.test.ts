import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rewriteJsonl } from '../../src/store/jsonl-rewrite.js';
import { cleanup, tempDir } from '../helpers/cli.js';

/** Issues 31 and 29: forget and redact --store rewrite store files; nothing but the dropped or replaced lines may change, whatever else happens meanwhile. */
test.after(cleanup);

const line = (record: unknown) => `${JSON.stringify(record)}\n`;

test('drops exactly the judged lines, parses only lines holding a needle, keeps torn and unreadable lines', async () => {
  const path = join(tempDir(), 'traces.jsonl');
  const long = 'x'.repeat(3 * 1024 * 1024); // longer than a read, across three of them
  writeFileSync(
    path,
    [
      line({ id: 1, c: 'keep' }),
      line({ id: 2, c: 'gone', pad: long }),
      'not json\n',
      line({ id: 3, c: 'gone' }),
      line({ id: 4, c: 'keep', pad: long }),
      '{"torn":',
    ].join(''),
  );
  const seen: unknown[] = [];
  const result = await rewriteJsonl(path, {
    needles: ['gone'],
    change: (record) => {
      seen.push(record.id);
      return record.c === 'gone' ? null : undefined;
    },
  });
  assert.equal(result, { removed: 2, replaced: 0, kept: 3 });
  assert.ok(
    seen.every((id) => id === 2 || id === 3),
    'only lines holding a needle were parsed',
  );
  assert.is(
    readFileSync(path, 'utf8'),
    [line({ id: 1, c: 'keep' }), 'not json\n', line({ id: 4, c: 'keep', pad: long }), '{"torn":'].join(''),
  );
});

test('a file with nothing to drop is not rewritten; a missing file is nothing', async () => {
  const path = join(tempDir(), 'ledgers.jsonl');
  writeFileSync(path, line({ id: 1 }));
  const before = statSync(path);
  assert.equal(await rewriteJsonl(path, { change: () => undefined }), { removed: 0, replaced: 0, kept: 1 });
  assert.is(statSync(path).ino, before.ino);
  assert.equal(await rewriteJsonl(join(tempDir(), 'none.jsonl'), { change: () => null }), { removed: 0, replaced: 0, kept: 0 });
});

test('lines appended while it runs are kept (the rewrite starts over when the file grew before the rename)', async () => {
  const path = join(tempDir(), 'traces.jsonl');
  const rows = Array.from({ length: 20_000 }, (_, n) => line({ id: n, c: n % 100 === 0 ? 'gone' : 'keep', pad: 'y'.repeat(200) }));
  writeFileSync(path, rows.join(''));
  let appended = 0;
  const appender = setInterval(() => appendFileSync(path, line({ id: `late-${appended++}`, c: 'keep' })), 1);
  try {
    await rewriteJsonl(path, { needles: ['gone'], change: (record) => (record.c === 'gone' ? null : undefined) });
  } finally {
    clearInterval(appender);
  }
  const ids = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((text) => JSON.parse(text).id);
  assert.is(ids.filter((id) => typeof id === 'number').length, 20_000 - 200);
  assert.is(ids.filter((id) => typeof id === 'string').length, appended, 'every appended line is there');
});

test('a replaced record is written in place of its line, asynchronously judged; the others stay byte for byte', async () => {
  const path = join(tempDir(), 'session-summaries.jsonl');
  const spaced = '{ "id": 1, "summary": "as it was" }\n';
  writeFileSync(path, [spaced, line({ id: 2, summary: 'secret' }), line({ id: 3, summary: 'gone' })].join(''));
  const result = await rewriteJsonl(path, {
    change: async (record) =>
      record.summary === 'secret' ? { ...record, summary: '[REDACTED]' } : record.summary === 'gone' ? null : undefined,
  });
  assert.equal(result, { removed: 1, replaced: 1, kept: 1 });
  assert.is(readFileSync(path, 'utf8'), [spaced, line({ id: 2, summary: '[REDACTED]' })].join(''));
});

test.run();
