import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalJson, contentId, identifiedLine, verifiedLine, withContentId } from '../../src/core/content-id.js';
import { ExitCode, TracerError } from '../../src/core/errors.js';

/**
 * Every expected canonical string below is written by hand from RFC 8785 (JCS)
 * and hashed here with node:crypto, so a bug in the implementation (or in the
 * canonicalize package) cannot also produce the expectation.
 */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function expectRefused(run: () => unknown, why: string) {
  try {
    run();
  } catch (error) {
    assert.instance(error, TracerError, why);
    assert.is((error as TracerError).code, 'invalid_record', why);
    assert.is((error as TracerError).exitCode, ExitCode.validation, why);
    return;
  }
  assert.unreachable(`${why}: expected invalid_record`);
}

/** A double from its IEEE 754 bit pattern, as RFC 8785 Appendix B lists them. */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

test('RFC 8785 §3.2.2 example: numbers, escapes and literals', () => {
  const input = JSON.parse(
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
  );
  const expected =
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
  assert.is(canonicalJson(input), expected);
  assert.is(contentId({ id: 'ignored', ...input }, 'id'), sha256(expected));
});

test('RFC 8785 §3.2.3 example: keys sort by UTF-16 code units, not code points', () => {
  const input = JSON.parse(
    '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",' +
      ' "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
  );
  // U+1F600 is the surrogate pair D83D DE00, so it sorts BEFORE U+FB33 although its code point is larger.
  const expected =
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
    '"\u20ac":"Euro Sign","\u{1F600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}';
  assert.is(canonicalJson(input), expected);
});

test('RFC 8785 Appendix B: number serialization from IEEE 754 bit patterns', () => {
  const vectors: Array<[string, string]> = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [bits, text] of vectors) assert.is(canonicalJson(fromBits(bits)), text, `0x${bits}`);
});

test('numbers as written in records: 1.0, -0, 0.1, exponents, large integers', () => {
  const record = JSON.parse(
    '{"id":"x","a":1.0,"b":-0,"c":0.1,"d":1e21,"e":1e20,"f":5E-7,"g":1e-6,"h":9007199254740993,"i":-1.5e+3,"j":123456789012345680000}',
  );
  const expected =
    '{"a":1,"b":0,"c":0.1,"d":1e+21,"e":100000000000000000000,"f":5e-7,"g":0.000001,"h":9007199254740992,"i":-1500,"j":123456789012345680000}';
  assert.is(canonicalJson({ ...record, id: undefined }), expected);
  assert.is(contentId(record, 'id'), sha256(expected));
});

test('strings: non-BMP, combining marks, U+2028/2029, control characters and escapes', () => {
  const record = {
    id: 'whatever',
    emoji: 'ok \u{1F44D}\u{1F3FD}',
    combining: 'e\u0301 vs \u00e9',
    separators: 'a\u2028b\u2029c',
    controls: '\u0000\u0001\b\t\n\u000b\f\r\u001f\u007f',
    quotes: 'say "hi" \\ /path',
  };
  // JCS escapes only ", \ and U+0000..U+001F (short forms where JSON has them); everything else is literal UTF-8.
  const expected =
    '{"combining":"e\u0301 vs \u00e9","controls":"\\u0000\\u0001\\b\\t\\n\\u000b\\f\\r\\u001f\u007f",' +
    '"emoji":"ok \u{1F44D}\u{1F3FD}","quotes":"say \\"hi\\" \\\\ /path","separators":"a\u2028b\u2029c"}';
  assert.is(canonicalJson({ ...record, id: undefined }), expected);
  assert.is(contentId(record, 'id'), sha256(expected));
  // Combining sequences are not normalized: NFC and NFD spellings are different records.
  assert.is.not(contentId({ id: '', s: 'e\u0301' }, 'id'), contentId({ id: '', s: '\u00e9' }, 'id'));
});

test('nested objects with unsorted keys, arrays keep their order, booleans and null', () => {
  const record = {
    ts: '2024-05-01T10:00:00Z',
    id: 'stale',
    meta: { z: [3, 1, 2], a: { y: null, b: true, B: false }, '': 'empty key', é: 1, e: 2 },
    list: [{ b: 1, a: 2 }, [], {}],
  };
  const expected =
    '{"list":[{"a":2,"b":1},[],{}],"meta":{"":"empty key","a":{"B":false,"b":true,"y":null},"e":2,"z":[3,1,2],"\u00e9":1},"ts":"2024-05-01T10:00:00Z"}';
  assert.is(contentId(record, 'id'), sha256(expected));
  // Key order in the input never changes the id.
  const reordered = {
    list: record.list,
    meta: { e: 2, é: 1, '': 'empty key', a: { B: false, b: true, y: null }, z: [3, 1, 2] },
    id: 'other',
    ts: record.ts,
  };
  assert.is(contentId(reordered, 'id'), contentId(record, 'id'));
});

test('known vector: a record holding only its id hashes the empty object', () => {
  assert.is(contentId({ id: 'anything' }, 'id'), '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  assert.is(contentId({ sha: 'anything' }, 'sha'), '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
});

test('the id member is removed: `id` for traces, `sha` for ledgers (and only that member)', () => {
  const ledger = { sha: 'old', id: 'kept', ts: '2024-01-01T00:00:00Z', commit: 'a'.repeat(40), trace_ids: ['t1', 't2'] };
  const expected = `{"commit":"${'a'.repeat(40)}","id":"kept","trace_ids":["t1","t2"],"ts":"2024-01-01T00:00:00Z"}`;
  assert.is(contentId(ledger, 'sha'), sha256(expected));
  assert.is(contentId({ ...ledger, sha: 'changed' }, 'sha'), contentId(ledger, 'sha'));
  assert.is.not(contentId({ ...ledger, id: 'changed' }, 'sha'), contentId(ledger, 'sha'));
  // The same record identified by `id` keeps `sha` in the hash.
  assert.is.not(contentId(ledger, 'id'), contentId(ledger, 'sha'));
});

test('withContentId sets the id member first, the rest in canonical order; replaces a stale one and is idempotent', () => {
  const trace = { ts: '2024-05-01T10:00:00Z', tool: 'edit', id: 'stale', files: [{ path: 'a', lines: [1, 2] }] };
  const withId = withContentId(trace, 'id');
  assert.is(withId.id, sha256('{"files":[{"lines":[1,2],"path":"a"}],"tool":"edit","ts":"2024-05-01T10:00:00Z"}'));
  assert.equal(Object.keys(withId), ['id', 'files', 'tool', 'ts']);
  assert.equal(Object.keys(withId.files[0]!), ['lines', 'path'], 'nested members too');
  assert.is(verifiedLine(withId, 'id'), JSON.stringify(withId), 'the fast check accepts what tracer writes');
  assert.is(verifiedLine(trace, 'id'), undefined, 'and leaves every other record to contentId');
  assert.equal(withContentId(withId, 'id'), withId);
  assert.is(trace.id, 'stale', 'the input record is not mutated');
  const ledger = withContentId<Record<string, unknown>>(
    { ts: '2024-01-01T00:00:00Z', commit: 'b'.repeat(40), trace_ids: [withId.id] },
    'sha',
  );
  assert.is(ledger.sha, contentId(ledger, 'sha'));
});

test('identifiedLine: the id of the text it hashed, and that text as the stored line with the id member first', () => {
  const ledger = {
    ts: '2024-01-01T00:00:00Z',
    sha: 'claimed',
    trace_ids: ['t2', 't1'],
    commit: 'c'.repeat(40),
    meta: { b: 1, a: [true, null] },
  };
  const { id, line } = identifiedLine(ledger, 'sha');
  assert.is(id, contentId(ledger, 'sha'));
  assert.is(
    line,
    `{"sha":"${id}","commit":"${'c'.repeat(40)}","meta":{"a":[true,null],"b":1},"trace_ids":["t2","t1"],"ts":"2024-01-01T00:00:00Z"}`,
  );
  assert.equal(JSON.parse(line), { ...ledger, sha: id });
  assert.equal(identifiedLine({ id: 'only' }, 'id'), { id: contentId({}, 'id'), line: `{"id":"${contentId({}, 'id')}"}` });
  assert.throws(
    () => identifiedLine({ id: 'x', n: Number.NaN }, 'id'),
    (error: unknown) => error instanceof TracerError && error.code === 'invalid_record',
  );
});

test('verifiedLine accepts only a record whose own JSON text, less its id, is canonical and hashes to that id', () => {
  const good = withContentId<Record<string, unknown>>({ ts: '2024-01-01T00:00:00Z', meta: { b: 'x', a: 1.5 } }, 'id');
  assert.is(verifiedLine(good, 'id'), JSON.stringify(good));
  assert.is(verifiedLine({ ...good, ts: '2024-01-02T00:00:00Z' }, 'id'), undefined, 'changed content');
  const { id, ...rest } = good;
  assert.is(verifiedLine({ ...rest, id }, 'id'), undefined, 'id not first');
  // An id computed over sorted top-level keys but unsorted nested ones is not a content id.
  const unsorted = JSON.parse('{"meta":{"b":"x","a":1.5},"ts":"2024-01-01T00:00:00Z"}') as Record<string, unknown>;
  const forged = { id: sha256(JSON.stringify(unsorted)), ...unsorted };
  assert.is(verifiedLine(forged, 'id'), undefined, 'hash matches its text, but the text is not canonical');
  assert.is.not(forged.id, contentId(forged, 'id'));
  const lone = { id: sha256('{"s":"\\ud800"}'), s: '\ud800' };
  assert.is(verifiedLine(lone, 'id'), undefined, 'a lone surrogate has no canonical form');
  assert.is(verifiedLine({ id: 'short', ts: 'x' }, 'id'), undefined);
});

test('a "__proto__" member parsed from JSON is an ordinary member: hashed, kept, never a prototype', () => {
  const record = JSON.parse('{"id":"x","__proto__":{"polluted":true},"ts":"t"}') as Record<string, unknown>;
  const expected = '{"__proto__":{"polluted":true},"ts":"t"}';
  assert.is(contentId(record, 'id'), sha256(expected));
  const withId = withContentId(record, 'id');
  assert.is(withId.id, sha256(expected));
  assert.ok(Object.prototype.hasOwnProperty.call(withId, '__proto__'));
  assert.is((withId as { polluted?: unknown }).polluted, undefined);
});

test('values JSON cannot carry are refused with invalid_record, never hashed', () => {
  expectRefused(() => contentId({ id: 'x', n: Number.NaN }, 'id'), 'NaN');
  expectRefused(() => contentId({ id: 'x', n: Number.POSITIVE_INFINITY }, 'id'), 'Infinity');
  expectRefused(() => contentId({ id: 'x', deep: { list: [1, Number.NEGATIVE_INFINITY] } }, 'id'), 'nested -Infinity');
  expectRefused(() => contentId({ id: 'x', big: 10n }, 'id'), 'BigInt');
  expectRefused(() => contentId({ id: 'x', s: 'lone \ud800 surrogate' }, 'id'), 'lone surrogate');
  expectRefused(() => withContentId({ n: Number.NaN }, 'id'), 'withContentId with NaN');
  expectRefused(() => canonicalJson(undefined), 'undefined');
});

test.run();
