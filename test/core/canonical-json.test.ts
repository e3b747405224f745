import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalJson } from '../../src/core/content-id.js';

/**
 * core/content-id.ts writes RFC 8785 itself (faster, see there); the
 * canonicalize package is the oracle: on any JSON value, and on objects with
 * arbitrary UTF-16 strings (lone surrogates included), both give the same text
 * or both refuse.
 */
const outcome = (run: () => string | undefined) => {
  try {
    return run() ?? 'refused';
  } catch {
    return 'refused';
  }
};

test('the same canonical text as the canonicalize package on any JSON value', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => canonicalJson(value) === canonicalize(value)),
    { numRuns: 3000 },
  );
});

test('the same text, or the same refusal, with any UTF-16 string, double or nesting', () => {
  const member = fc.oneof(fc.string({ unit: 'binary' }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null));
  const value = fc.dictionary(
    fc.string({ unit: 'binary' }),
    fc.oneof(member, fc.array(member), fc.dictionary(fc.string({ unit: 'binary' }), member)),
  );
  fc.assert(
    fc.property(value, (record) => outcome(() => canonicalJson(record)) === outcome(() => canonicalize(record))),
    { numRuns: 3000 },
  );
});

test('strings that need escaping or hold surrogate pairs take the careful path', () => {
  assert.is(
    canonicalJson({ a: 'tab\there', b: 'quote"', c: 'back\\slash', d: '😀', e: '\u2028' }),
    '{"a":"tab\\there","b":"quote\\"","c":"back\\\\slash","d":"😀","e":"\u2028"}',
  );
  assert.is(
    outcome(() => canonicalJson({ lone: '\ud800' })),
    'refused',
  );
  assert.is(
    outcome(() => canonicalJson({ ['\udc00']: 1 })),
    'refused',
  );
});

test.run();
