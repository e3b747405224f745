import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { withContentId } from '../../src/core/content-id.js';
import { FAMILIES, TS } from './hostile-support.js';

/**
 * fast-check generators of hostile input for the service. Every body, path and
 * header they make is wrong by construction (so every answer must be a refusal),
 * and valid rows ride along with bad ones, so "nothing stored" is tested too.
 */

/** fast-check 4 dropped hexaString: lowercase hex of a length in [min, max]. */
const hex = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength, maxLength });

/** Characters that break naive code: lone surrogates, NUL, bidi overrides, BOM, noncharacters, NEL. */
const ODD_CHARS = [
  '\ud800',
  '\udfff',
  '\udc00\ud800',
  '\u0000',
  '\u202e',
  '\u200f',
  '\u2066',
  '\ufeff',
  '\uffff',
  '\u0085',
  '\u2028',
  '\u{1F600}',
  'é',
  'e\u0301',
  '\\',
  '"',
  '%00',
];

export const oddString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.array(fc.constantFrom(...ODD_CHARS), { minLength: 1, maxLength: 8 }).map((parts) => parts.join('')),
);

/** Strings from 64 KiB to 600 KiB: over the inline size of many parsers, under the body cap unless many pile up. */
export const hugeString = fc
  .integer({ min: 64 * 1024, max: 600 * 1024 })
  .chain((size) => fc.constantFrom('x', '\u202e', '\ud800', 'é').map((unit) => unit.repeat(size)));

/**
 * Arrays or objects nested past the service's depth limit (256), as values (kept
 * shallow enough for JSON.stringify here); deepText goes to 100 000 levels as raw text.
 */
export const deepValue = fc.tuple(fc.integer({ min: 257, max: 2_000 }), fc.boolean()).map(([depth, arrays]) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { n: value };
  return value;
});

let serial = 0;
/** A correct item of `family` (right members, right content id): valid on its own. */
export function validItem(family: (typeof FAMILIES)[number], extra: Record<string, unknown> = {}): Record<string, unknown> {
  serial += 1;
  const marker = { fuzz: serial, ...extra };
  switch (family) {
    case 'traces':
      return withContentId({ ts: TS, ...marker }, 'id');
    case 'ledgers':
      return withContentId({ ts: TS, commit: 'c'.repeat(40), trace_ids: [], ...marker }, 'sha');
    case 'commit-links':
      return withContentId({ ts: TS, commit: 'd'.repeat(40), ...marker }, 'id');
    case 'summaries':
      return withContentId({ ts: TS, conversation_url: `https://chat.example/${serial}`, ...marker }, 'id');
    case 'conversations': {
      const bytes = Buffer.from(`fuzz transcript ${serial}`);
      return {
        conversation_id: `fuzz-${serial}`,
        content_sha256: createHash('sha256').update(bytes).digest('hex'),
        size: bytes.length,
        ts: TS,
        content_base64: bytes.toString('base64'),
        ...extra,
      };
    }
  }
}

const idMember = (family: string) => (family === 'ledgers' ? 'sha' : family === 'conversations' ? 'content_sha256' : 'id');

/** One item that the service must refuse, for `family`. */
export function badItem(family: (typeof FAMILIES)[number]): fc.Arbitrary<unknown> {
  const id = idMember(family);
  return fc.oneof(
    // Not an object at all.
    fc.oneof(fc.constant(null), fc.integer(), oddString, fc.array(fc.integer(), { maxLength: 3 }), fc.boolean()),
    // A required member missing or of the wrong type.
    fc
      .tuple(
        fc.constantFrom(id, 'ts', 'commit', 'trace_ids', 'conversation_url', 'size', 'conversation_id'),
        fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), oddString, fc.constant({}), fc.constant([1]), fc.double()),
      )
      .filter(([member]) => member in validItem(family))
      .map(([member, value]) => {
        const item = validItem(family);
        if (value === undefined) delete item[member];
        else item[member] = value;
        return item;
      })
      .filter((item) => !isStillValid(family, item)),
    // Well-formed, but the id is not the content id (odd unicode inside changes nothing).
    // (The odd text goes in after the id is computed: RFC 8785 has no form for a lone surrogate at all.)
    fc
      .tuple(oddString, hex(64, 64))
      .map(([text, fake]) => ({ ...validItem(family), text, ...(family === 'conversations' ? { size: 999_999 } : { [id]: fake }) })),
    // Lone surrogates in a member name or value: no canonical form, so no content id can match.
    fc
      .constantFrom('\ud800', '\udfff', 'a\udc00b')
      .map((lone) => withFakeId(family, { ...validItem(family), [`key${lone}`]: `value${lone}` })),
    // Timestamps that are not ISO-8601 with a zone.
    fc
      .constantFrom(
        '2024-05-01',
        '2024-05-01T12:00:00',
        'yesterday',
        '2024-13-45T99:99:99Z',
        '',
        '\u0662\u0660\u0662\u0664-05-01T12:00:00Z',
      )
      .map((ts) => ({ ...validItem(family), ts })),
    // Nesting past the limit, or a number JSON cannot hold (added to the raw text later).
    deepValue.map((deep) => withFakeId(family, { ...validItem(family), deep })),
    // Huge strings with the wrong id.
    hugeString.map((text) => withFakeId(family, { ...validItem(family), text })),
  );
}

function withFakeId(family: string, item: Record<string, unknown>): Record<string, unknown> {
  if (family === 'conversations') return { ...item, content_base64: 'AAAA' };
  return { ...item, [idMember(family)]: 'f'.repeat(64) };
}

/** Cheap guard: a mutation that happens to keep the item valid (e.g. an extra member on a non-required slot). */
function isStillValid(family: string, item: Record<string, unknown>): boolean {
  if (family === 'conversations') return false;
  const id = idMember(family);
  try {
    return typeof item[id] === 'string' && withContentId({ ...item }, id)[id] === item[id] && typeof item.ts === 'string';
  } catch {
    return false; // no canonical form (a lone surrogate): certainly not valid
  }
}

/** A JSON body text for POST /api/v1/sync/<family> that must be refused. */
export function hostileSyncBody(family: (typeof FAMILIES)[number]): fc.Arbitrary<string | Buffer> {
  const items = fc
    .tuple(
      fc.array(
        fc.constant(null).map(() => validItem(family)),
        { maxLength: 3 },
      ),
      fc.array(badItem(family), { minLength: 1, maxLength: 3 }),
    )
    .chain(([good, bad]) => fc.shuffledSubarray([...good, ...bad], { minLength: good.length + bad.length }));
  return fc.oneof(
    { weight: 4, arbitrary: items.map((list) => JSON.stringify({ items: list })) },
    // Wrong shapes: anything but {"items": [...]}.
    fc
      .jsonValue({ maxDepth: 3 })
      .filter((value) => !(isObject(value) && Array.isArray(value.items)))
      .map((value) => JSON.stringify(value) ?? 'null'),
    fc.constantFrom('{"items": {}}', '{"items": "[]"}', '{"Items": []}', '{"items": null}', '[{"items": []}]'),
    // Not JSON: truncated, trailing junk, comments, NaN, single quotes, raw control characters, a BOM.
    fc.tuple(items, fc.nat()).map(([list, cut]) => {
      const text = JSON.stringify({ items: list });
      return text.slice(0, cut % Math.max(1, text.length - 1));
    }),
    fc.constantFrom(
      '{"items": []} trailing',
      "{'items': []}",
      '{"items": [NaN]}',
      '{"items": [1e400]}',
      '/* */{"items": []}',
      '{"items": ["\u0000"]}',
      '\ufeff{"items": [null]}',
      '{"items": ["\\ud800\\u"]}',
      '',
    ),
    // Invalid UTF-8: overlong "/" (C0 AF), an encoded lone surrogate (ED A0 80), a stray continuation byte.
    fc
      .constantFrom([0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80], [0xff, 0xfe])
      .map((bad) =>
        Buffer.concat([Buffer.from('{"items": [{"id": "'), Buffer.from(bad), Buffer.from('", "ts": "2024-05-01T12:00:00.000Z"}]}')]),
      ),
    // Nesting far past anything a recursive parser or serializer survives, with a well-formed id.
    fc.tuple(fc.integer({ min: 5_000, max: 100_000 }), fc.constantFrom(['[', ']'], ['{"a":', '}'])).map(([depth, [open, close]]) => {
      const deep = `${open!.repeat(depth)}1${close!.repeat(depth)}`;
      return `{"items": [{"${idMember(family)}": "${'e'.repeat(64)}", "ts": "${TS}", "conversation_id": "c", "size": 1, "deep": ${deep}}]}`;
    }),
    // More items than one request may carry.
    fc.integer({ min: 501, max: 700 }).map((count) => JSON.stringify({ items: Array.from({ length: count }, () => validItem(family)) })),
    // A 1e400 member after its content id was computed (JSON.parse makes it Infinity).
    fc.constant(null).map(() => JSON.stringify({ items: [validItem(family, { big: 'BIG' })] }).replace('"BIG"', '1e400')),
  );
}

/** Admin bodies that must be refused: always at least one bad member, or no object at all. */
export const hostileAdminBody = fc.oneof(
  fc
    .record({ org_slug: fc.oneof(slugLike(), fc.constant('acme')), project_slug: slugLike(), name: fc.oneof(oddString, fc.constant('ok')) })
    .map((body) => JSON.stringify(body)),
  fc.record({ org_slug: slugLike(), name: oddString }).map((body) => JSON.stringify(body)),
  fc
    .jsonValue({ maxDepth: 2 })
    .filter((value) => !isObject(value))
    .map((value) => JSON.stringify(value) ?? 'null'),
  fc.constantFrom(
    '{',
    '{"org_slug": "acme", "project_slug": "x", "name": "\u0000"}',
    '{"org_slug": ["acme"], "project_slug": "web"}',
    '{"org_slug": "acme", "project_slug": "web", "name": "x"} junk',
  ),
);

/** Slug-shaped hostility: traversal, case, length, unicode look-alikes; never a valid slug. */
export function slugLike(): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.constantFrom(
        '..',
        '.',
        '../globex',
        'acme/../globex',
        '..%2Fglobex',
        '%2e%2e',
        'ACME',
        'Acme',
        'web ',
        ' web',
        'we\tb',
        '-web',
        '.web',
        '_web',
        'a'.repeat(65),
        'ａｃｍｅ',
        'acme\u202e',
        'acm\u0435',
        'web%00',
        'web\\..\\shop',
        '',
      ),
      oddString,
    )
    .filter((value) => !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(value));
}

/** Every byte of the UTF-8 form as %XX: works for any string, lone surrogates included (as U+FFFD). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
}

/** A path segment standing where a sha belongs: never 64 lowercase hex, traversal of every kind. */
export const hostileSha = fc.oneof(
  fc.constantFrom(
    '..',
    '../../../../etc/passwd',
    '..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '%252e%252e%252fetc',
    '....//....//etc',
    '..%5C..%5Cetc',
    '%c0%ae%c0%ae%c0%af',
    '%ed%a0%80',
    '%00',
    'a'.repeat(64) + '%00',
    'a'.repeat(64) + '%2F..',
    'a'.repeat(64) + '/..',
    './' + 'a'.repeat(64),
    'A'.repeat(64),
    'a'.repeat(63),
    'a'.repeat(65),
    'a'.repeat(5000),
    'probe',
  ),
  hex(0, 70).filter((value) => !/^[0-9a-f]{64}$/.test(value)),
  oddString.map(percentEncode),
);

/** Header-safe text (what node:http will send): visible ASCII and latin-1, no CR/LF/NUL. */
export const headerValue = fc.oneof(
  slugLike().filter((value) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value)),
  fc.string({ maxLength: 70 }).filter((value) => /^[\t\x20-\x7e]*$/.test(value) && !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(value)),
  fc.constantFrom('acme, globex', 'acme,acme', 'globex', 'shop'),
);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
