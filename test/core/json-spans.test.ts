import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { itemSpans } from '../../src/core/json-spans.js';

/** itemSpans finds each element of "items" exactly as the text has it, whatever the JSON around and inside it. */
const slices = (text: string) => itemSpans(text)?.map(([start, end]) => text.slice(start, end));

test('each element of the items array, in order, as written', () => {
  const items = [{ id: 'a', s: 'x,"y"]}\\', n: [1, { b: null }] }, 'plain', 12.5e3, true, null, [], {}];
  const text = JSON.stringify({ next_cursor: 'c]}', items, has_more: false });
  assert.equal(
    slices(text),
    items.map((item) => JSON.stringify(item)),
  );
});

test('whitespace anywhere, and members before and after items', () => {
  const text = ' {\n "a" : [1, {"items": 2}] ,\t"items" : [ {"x" : "\\"" } ,\n 3 ] , "z": {} } ';
  assert.equal(slices(text), ['{"x" : "\\"" }', '3']);
  assert.equal(slices('{"items":[]}'), []);
});

test('anything else is not walked: no items member, items not an array, not an object', () => {
  for (const text of ['[]', '{"other":[1]}', '{"items":{"a":1}}', '"items"', '{"items":[1,2', '{}'])
    assert.is(itemSpans(text), undefined, text);
});

test('any JSON value: the spans of a stringified page are the stringified items', () => {
  fc.assert(
    fc.property(fc.array(fc.jsonValue()), fc.jsonValue(), (items, other) => {
      const text = JSON.stringify({ before: other, items, after: other });
      assert.equal(
        slices(text),
        items.map((item) => JSON.stringify(item)),
      );
    }),
    { numRuns: 300 },
  );
});

test.run();
