// Issue 29, "Precision matters as much as recall": every rule redacts every
// sample of its format (the corpus: issuers' documented formats, values made by
// the test), in plain text, in a transcript line and in a JSON file a tool read;
// and none of the benign strings a transcript is full of (git SHAs, sha256
// digests, UUIDs, npm integrity hashes, base64 test data, process.env.API_KEY,
// <your-password>, ${VAR}) is touched. The figures per rule are in BENCHMARKS.md
// (bench/workloads/redaction.ts prints them).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { benign } from './corpus.js';
import { builtinRedactor, measureCorpus } from './corpus-figures.js';

test('recall: every built-in rule redacts every sample of its format, and names it', async () => {
  const figures = await measureCorpus({ perRule: 6 });
  assert.ok(figures.rules.length >= 26, `${figures.rules.length} rules measured`);
  for (const rule of figures.rules) {
    if (rule.samples === 0) continue;
    assert.is(rule.redacted, rule.samples, `${rule.rule}: ${rule.redacted} of ${rule.samples} redacted`);
    assert.is(rule.named, rule.samples, `${rule.rule}: ${rule.named} of ${rule.samples} named by it`);
  }
  assert.equal(
    figures.missed.map((sample) => sample.rule),
    [],
  );
  assert.equal(figures.problems, []);
});

test('false positives: no benign string of the corpus is changed, byte for byte', async () => {
  const figures = await measureCorpus({ perRule: 1 });
  assert.ok(figures.benign >= 100, `${figures.benign} benign strings`);
  assert.equal(figures.changed, []);
  for (const rule of figures.rules) assert.is(rule.falsePositives, 0, `${rule.rule} found something benign`);
});

test('personal data: e-mail addresses and phone numbers only when redact.pii is on', async () => {
  const on = await measureCorpus({ pii: true, perRule: 6 });
  for (const rule of on.rules.filter((one) => one.samples > 0)) assert.is(rule.redacted, rule.samples, rule.rule);
  assert.equal(on.changed, [], 'benign strings stay, e-mail-like URLs included');
  const { redactor } = await builtinRedactor(false);
  const text = 'Signed-off-by: Jane Roe <jane.roe@example.com>, call +1 415 555 0134\n';
  assert.is((await redactor.redact(text)).text, text, 'off by default');
  await redactor.close();
});

test('the benign corpus holds what the issue lists', () => {
  const all = benign().join('\n');
  for (const needle of [
    'commit ',
    'sha256:',
    '"integrity": "sha512-',
    'process.env.API_KEY',
    '<your-password>',
    '${DB_PASSWORD}',
    'request id ',
  ])
    assert.ok(all.includes(needle), needle);
});

test.run();
