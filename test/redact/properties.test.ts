// Issue 29's properties, with fast-check: redaction never grows a line that
// holds no secret (it comes out byte for byte), and redacting redacted text
// changes nothing, whatever the mix of secrets, JSON, escapes and noise.
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Redactor } from '../../src/redact/engine.js';
import { builtinRedactor } from './corpus-figures.js';
import { benign, positives } from './corpus.js';

/** Fixed, so a failure replays; TRACER_FUZZ_SEED picks another. */
const seed = Number(process.env.TRACER_FUZZ_SEED ?? 2929);
let redactor: Redactor;

test.before(async () => {
  redactor = (await builtinRedactor()).redactor;
});
test.after(async () => {
  await redactor.close();
});

const secrets = positives({ perRule: 1 }).filter((sample) => !sample.text.startsWith('{'));
const benignLines = benign();

/** A line: noise, benign strings, JSON, and (sometimes) a secret, joined in any order. */
const piece = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(...benignLines),
  fc.json({ maxDepth: 2 }),
  fc.constantFrom('=', ': ', '"', '\\"', '\\n', "'", ' ', 'password', 'token', 'api_key', 'secret', '://', '@', 'Bearer '),
);
const line = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
const withSecret = fc
  .tuple(line, fc.constantFrom(...secrets), line)
  .map(([before, sample, after]) => `${before}${sample.text.trimEnd()}${after}`);

test('a line without a finding comes out byte for byte: redaction never grows a non-secret line', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(line, fc.json(), fc.constantFrom(...benignLines)), async (text) => {
      const result = await redactor.redact(text);
      if (result.findings.length === 0) assert.is(result.text, text);
    }),
    { seed, numRuns: 400 },
  );
});

test('benign strings, alone or joined with noise around them, are never found', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...benignLines), fc.constantFrom('', ' ', '\n', '; '), async (text, glue) => {
      const joined = `${glue}${text}${glue}`;
      assert.equal((await redactor.redact(joined)).findings, []);
    }),
    { seed, numRuns: 200 },
  );
});

test('redaction is idempotent: redacting redacted text changes nothing', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        withSecret,
        line,
        withSecret.map((text) => JSON.stringify({ content: text })),
      ),
      async (text) => {
        const once = await redactor.redact(text);
        const twice = await redactor.redact(once.text);
        assert.is(twice.text, once.text);
        assert.equal(twice.findings, []);
      },
    ),
    { seed, numRuns: 300 },
  );
});

test.run();
