// The linear filter the build compiles into secretlint in place of its quadratic
// one (scripts/vendor-patches/secretlint-filter-duplicated.mjs): the same result
// on any list of messages, and the built file holds it.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filterDuplicatedMessages as linear } from '../../scripts/vendor-patches/secretlint-filter-duplicated.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const seed = Number(process.env.TRACER_FUZZ_SEED ?? 4242);

/** The published filter, by its file: the package exports only lintSource. */
async function published(): Promise<(messages: unknown[]) => unknown[]> {
  const core = dirname(createRequire(import.meta.url).resolve('@secretlint/core'));
  const module = await import(pathToFileURL(join(core, 'messages/filter-duplicated-process.js')).href);
  return module.filterDuplicatedMessages;
}

test('the linear filter keeps exactly what the published one keeps, in the same order', async () => {
  const quadratic = await published();
  // Few distinct values, so that duplicates are common; some messages without a severity, which equal none.
  const message = fc.record(
    {
      range: fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 3, max: 5 })),
      severity: fc.constantFrom('error', 'warning', 'info'),
      message: fc.constantFrom('a', 'b', 'found "x"'),
      id: fc.nat(),
    },
    { requiredKeys: ['range', 'message', 'id'] },
  );
  fc.assert(
    fc.property(fc.array(message, { maxLength: 40 }), (messages) => {
      assert.equal(linear(messages), quadratic(messages));
    }),
    { seed, numRuns: 500 },
  );
  assert.equal(linear(), []);
});

test('the built secretlint holds the linear filter', () => {
  const built = readFileSync(join(root, 'dist/vendor/secretlint.js'), 'utf8');
  assert.match(built, /JSON\.stringify\(\[(\w+)\.range\[0\],\s*\1\.range\[1\],\s*\1\.severity,\s*\1\.message\]\)/);
});

test.run();
