// Offsets between a JSON string's raw text and its decoded value (src/redact/json-strings.ts).
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodedIndexes, hiddenAsciiLines, unescapedAscii } from '../../src/redact/json-strings.js';

const seed = Number(process.env.TRACER_FUZZ_SEED ?? 3131);

test('decodedIndexes: a raw offset maps to the unit (character or escape) that holds it, whatever the order asked', () => {
  const unit = fc.constantFrom('a', 'Z', ' ', '\\n', '\\"', '\\\\', '\\u00e9', '\\u4e2d', '/');
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 8 }), (units, picks) => {
      const raw = units.join('');
      const line = `{"k":"${raw}"}`;
      const start = line.indexOf(raw, 5);
      // Each raw offset of the string, with the decoded offset of the unit it falls in.
      const expected: number[] = [];
      units.forEach((text, index) => {
        for (let k = 0; k < text.length; k += 1) expected.push(index);
      });
      expected.push(units.length);
      const raws = picks.map((pick) => start + (pick % expected.length));
      assert.equal(
        decodedIndexes(line, start, raws),
        raws.map((offset) => expected[offset - start]),
      );
      assert.is((JSON.parse(`"${raw}"`) as string).length, units.length, 'one decoded character a unit');
    }),
    { seed, numRuns: 500 },
  );
});

test('escapes of printable ASCII are found once a line and read through; control and ordinary escapes are not', () => {
  const text = [
    String.raw`{"a":"https:\/\/x.example\/y \/ again"}`,
    String.raw`{"a":"\u001b[0m \u007f \n \" \\"}`,
    String.raw`{"a":"\u0067hp_ and \\/ nested"}`,
    String.raw`{"a":"\u003cpassword\u003e (Go's HTML-safe escapes)"}`,
  ].join('\n');
  const found = hiddenAsciiLines(text);
  assert.equal(
    found.map((index) => text.slice(0, index).split('\n').length),
    [1, 3, 4],
    'lines 1, 3 and 4, once each',
  );
  assert.is(unescapedAscii(String.raw`postgres:\\/\\/app:pw@db \u0067hp_ \u003c \u001b`), String.raw`postgres://app:pw@db ghp_ < \u001b`);
});

test.run();
