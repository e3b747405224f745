// The team's rules, `.tracer/redact.json` (src/redact/layers/team-rules.ts): a
// rule redacts under its own id; a file that does not parse, a pattern that is
// not one, a rule that misses one of its samples: the whole file is refused with
// redact_rule_invalid naming the rule, and the built-in layers still run; a
// pattern that backtracks catastrophically is stopped by its time box, named
// (redact_rule_timeout), and the other rules still run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redactor } from '../../src/redact/engine.js';
import { secretlintDetector } from '../../src/redact/layers/secretlint.js';
import { teamRulesDetector } from '../../src/redact/layers/team-rules.js';
import { fingerprintWith } from '../../src/redact/placeholder.js';
import type { RedactionProblem } from '../../src/redact/types.js';
import { cleanup, tempDir } from '../helpers/cli.js';

test.after(cleanup);

const GITHUB = `ghp_${'a1B2c3D4e5'.repeat(3)}a1B2c3`;

async function team(file: unknown) {
  const root = tempDir('redact-team-');
  mkdirSync(join(root, '.tracer'));
  writeFileSync(join(root, '.tracer', 'redact.json'), typeof file === 'string' ? file : JSON.stringify(file));
  const problems: RedactionProblem[] = [];
  const report = (problem: RedactionProblem) => problems.push(problem);
  const detector = await teamRulesDetector({ purpose: 'capture', home: '/nonexistent', root, env: {}, pii: false, report });
  const detectors = detector ? [secretlintDetector(), detector] : [secretlintDetector()];
  const redactor = new Redactor(detectors, { fingerprint: fingerprintWith(Buffer.alloc(32)), report });
  return { detector, redactor, problems };
}

test('a team rule redacts under its own id; a named group `secret` narrows it; samples that match are fine', async () => {
  const { detector, redactor, problems } = await team({
    rules: [
      { id: 'acme-internal-key', pattern: 'ACME-[0-9a-f]{32}', samples: ['key ACME-0123456789abcdef0123456789abcdef here'] },
      { id: 'acme-badge', pattern: 'badge=(?<secret>[0-9]{8})', flags: 'i', samples: ['BADGE=12345678'] },
    ],
  });
  assert.ok(detector);
  assert.equal(problems, []);
  const { text } = await redactor.redact('use ACME-00112233445566778899aabbccddeeff and Badge=87654321 now\n');
  assert.match(text, /^use \[REDACTED:acme-internal-key:[0-9a-f]{6}\] and Badge=\[REDACTED:acme-badge:[0-9a-f]{6}\] now\n$/);
  const json = await redactor.redact(`${JSON.stringify({ content: 'x ACME-00112233445566778899aabbccddeeff y' })}\n`);
  assert.not.ok(json.text.includes('ACME-0011'), 'in a transcript line too');
  await redactor.close();
});

for (const [name, file, named] of [
  ['a file that is not JSON', '{"rules": [', /is not valid JSON/],
  ['rules that are not a list', { rules: { id: 'x' } }, /must be an object with a "rules" array/],
  [
    'an id a placeholder cannot carry',
    { rules: [{ id: 'Has Spaces', pattern: 'x', samples: ['x'] }] },
    /rule "Has Spaces" .* needs an "id"/,
  ],
  [
    'a pattern that is not a regular expression',
    { rules: [{ id: 'broken', pattern: '([a-z', samples: ['a'] }] },
    /rule "broken" .* not a valid regular expression/,
  ],
  ['a rule without samples', { rules: [{ id: 'untested', pattern: 'abc' }] }, /rule "untested" .* needs "samples"/],
  [
    'a rule with an empty list of samples',
    { rules: [{ id: 'untested', pattern: 'abc', samples: [] }] },
    /rule "untested" .* needs "samples"/,
  ],
  [
    'a rule that misses its sample',
    {
      rules: [
        { id: 'ok', pattern: 'OK-\\d+', samples: ['OK-1'] },
        { id: 'acme-token', pattern: 'acme_[a-z]{10}', samples: ['acme_short'.replace('short', 'abc')] },
      ],
    },
    /rule "acme-token" .* does not match its sample number 1/,
  ],
] as const) {
  test(`${name}: the file is refused (redact_rule_invalid, naming it) and the built-in layers still run`, async () => {
    const { detector, redactor, problems } = await team(file);
    assert.is(detector, undefined);
    assert.equal(
      problems.map((problem) => problem.code),
      ['redact_rule_invalid'],
    );
    assert.match(problems[0]!.message, named);
    assert.match(problems[0]!.message, /the built-in rules still are/);
    assert.not.ok((await redactor.redact(`token ${GITHUB}\n`)).text.includes(GITHUB));
    await redactor.close();
  });
}

test('a pattern that backtracks catastrophically is stopped by its time box and named; the other rules and the built-ins still run', async () => {
  const { redactor, problems } = await team({
    rules: [
      { id: 'greedy', pattern: '(a+)+$', samples: ['aaaa'] },
      { id: 'acme-internal-key', pattern: 'ACME-[0-9a-f]{32}', samples: ['ACME-00112233445566778899aabbccddeeff'] },
    ],
  });
  const text = `ACME-00112233445566778899aabbccddeeff ${GITHUB}\n${'a'.repeat(40)}!\n`;
  const started = Date.now();
  const { text: out } = await redactor.redact(text);
  assert.ok(Date.now() - started < 30_000, 'it came back');
  assert.not.ok(out.includes('ACME-0011'), 'the other team rule ran');
  assert.not.ok(out.includes(GITHUB), 'the built-in layers ran');
  assert.equal(
    problems.map((problem) => problem.code),
    ['redact_rule_timeout'],
  );
  assert.match(problems[0]!.message, /"greedy"/);
  // Dropped for the rest of the run: the next text is quick.
  const again = Date.now();
  await redactor.redact(`${'a'.repeat(40)}!\n`);
  assert.ok(Date.now() - again < 1_500, 'not run again');
  await redactor.close();
});

test('no file, no team rules, no problem', async () => {
  const root = tempDir('redact-team-');
  const problems: RedactionProblem[] = [];
  assert.is(
    await teamRulesDetector({ purpose: 'capture', home: '/x', root, env: {}, pii: false, report: (p) => problems.push(p) }),
    undefined,
  );
  assert.equal(problems, []);
});

test.run();
