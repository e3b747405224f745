// `tracer redact check [FILE|-] [--json]`, `tracer redact rules` and `tracer
// redact --store` (issue 29, items 5 and 6), run as the built binary: findings
// with line, column and a preview that never shows the secret; exit 1 when
// anything would be redacted, 0 when nothing would; the team's file applied,
// and refused with redact_rule_invalid when it is broken.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runTracer, sandbox, tempDir } from '../helpers/cli.js';

test.after.each(cleanup);

const AWS = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY9z8Y7x6W5v';
const GITHUB = `ghp_${'P0o9I8u7Y6'.repeat(3)}t5R4e3`;

test('check FILE: each finding with its line, column and a masked preview; exit 1', async () => {
  const box = sandbox();
  writeFileSync(join(box.repo, '.env'), `# staging\nAWS_SECRET_ACCESS_KEY=${AWS}\nAPP=web\n  token: "${GITHUB}" # and again ${GITHUB}\n`);
  const human = await box.run(['redact', 'check', '.env']);
  assert.is(human.code, 1);
  assert.match(human.stdout, /^\.env:2:23 {2}aws-secret-access-key {2}AWS_SECRET_ACCESS_KEY=\[REDACTED:aws-secret-access-key\]$/m);
  assert.match(human.stdout, /^\.env:4:11 {2}github-token {2}token: "\[REDACTED:github-token\]" # and again \[REDACTED:github-token\]$/m);
  assert.match(human.stderr, /3 findings/);
  const json = await box.run(['redact', 'check', '.env', '--json']);
  assert.is(json.code, 1);
  const { findings } = JSON.parse(json.stdout);
  assert.equal(
    findings.map((finding: any) => Object.keys(finding)),
    [
      ['rule', 'line', 'column', 'preview'],
      ['rule', 'line', 'column', 'preview'],
      ['rule', 'line', 'column', 'preview'],
    ],
  );
  assert.equal(
    findings.map((finding: any) => [finding.rule, finding.line, finding.column]),
    [
      ['aws-secret-access-key', 2, 23],
      ['github-token', 4, 11],
      ['github-token', 4, 65],
    ],
  );
  for (const output of [human.stdout, human.stderr, json.stdout])
    assert.not.ok(output.includes(AWS.slice(4, 20)) || output.includes(GITHUB.slice(4, 20)), 'never the secret');
});

test('check of a file with a secret on every line: each on its own line, in order, every preview masked', async () => {
  const box = sandbox();
  // A printed .env: line numbers and previews come from the lines found once, not counted again for each finding.
  const values = Array.from({ length: 2000 }, (_, index) => `${GITHUB.slice(0, 30)}${String(index).padStart(10, '0')}`);
  writeFileSync(
    join(box.repo, 'big.env'),
    values.map((value, index) => `export API_TOKEN_${index}=${value} # ${value.slice(0, 4)}\n`).join(''),
  );
  const json = await box.run(['redact', 'check', 'big.env', '--json']);
  assert.is(json.code, 1);
  const { findings } = JSON.parse(json.stdout);
  assert.equal(
    findings.map((finding: any) => finding.line),
    values.map((_, index) => index + 1),
  );
  for (const [index, finding] of findings.entries()) {
    assert.is(finding.rule, 'github-token');
    assert.is(finding.preview, `export API_TOKEN_${index}=[REDACTED:github-token] # ghp_`);
    assert.is(finding.column, `export API_TOKEN_${index}=`.length + 1);
  }
});

test('check - (stdin) with nothing to redact: exit 0, and {"findings": []}', async () => {
  const box = sandbox();
  const clean = 'commit 3f9a1c2b4d5e6f708192a3b4c5d6e7f809112233\nconst apiKey = process.env.API_KEY;\n';
  const human = await box.run(['redact', 'check', '-'], { input: clean });
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, /Nothing to redact in stdin\./);
  const json = await box.run(['redact', 'check', '-', '--json'], { input: clean });
  assert.equal(JSON.parse(json.stdout), { findings: [] });
  const piped = await box.run(['redact', 'check', '--json'], { input: `x ${GITHUB}\n` });
  assert.is(piped.code, 1, 'stdin is read when no file is named and it is piped');
  assert.is(JSON.parse(piped.stdout).findings[0].rule, 'github-token');
  // Columns count characters as an editor does: é, € and an emoji (two UTF-16 units) are one each.
  // Counted on from one finding to the next of the same line, and from the start of the next line.
  const wide = await box.run(['redact', 'check', '-', '--json'], { input: `é€😀 ${GITHUB} 😀😀 ${GITHUB}\n😀 ${GITHUB}\n` });
  assert.equal(
    JSON.parse(wide.stdout).findings.map((finding: any) => [finding.line, finding.column]),
    [
      [1, 5],
      [1, 5 + GITHUB.length + 4],
      [2, 3],
    ],
  );
});

test('check works outside any repository, and a missing file is a clear error', async () => {
  const dir = tempDir('redact-outside-');
  const home = join(tempDir('redact-home-'), 'home');
  writeFileSync(join(dir, 'a.txt'), `key ${GITHUB}\n`);
  assert.is((await runTracer(['redact', 'check', 'a.txt'], { cwd: dir, home })).code, 1);
  const missing = await runTracer(['redact', 'check', 'nope.txt'], { cwd: dir, home });
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /nope\.txt does not exist; give a readable file, or - for stdin\. \(input_unreadable\)/);
});

test("the team's rules apply in their repository; a broken file stops check and rules with redact_rule_invalid", async () => {
  const box = sandbox();
  mkdirSync(join(box.repo, '.tracer'));
  const file = join(box.repo, '.tracer', 'redact.json');
  writeFileSync(file, JSON.stringify({ rules: [{ id: 'acme-badge', pattern: 'BADGE-\\d{8}', samples: ['BADGE-12345678'] }] }));
  mkdirSync(join(box.repo, 'sub'));
  writeFileSync(join(box.repo, 'sub', 'n.txt'), 'my BADGE-87654321 here\n');
  const found = await box.run(['redact', 'check', 'n.txt', '--json'], { cwd: join(box.repo, 'sub') });
  assert.is(found.code, 1);
  assert.is(JSON.parse(found.stdout).findings[0].rule, 'acme-badge');
  const rules = JSON.parse((await box.run(['redact', 'rules', '--json'])).stdout).rules;
  assert.equal(rules.at(-1), { id: 'acme-badge', description: '/BADGE-\\d{8}/', detector: 'team-rules', source: '.tracer/redact.json' });
  // A detector lists a rule id once, saying every kind of secret it names.
  const secretlint = rules.filter((rule: any) => rule.detector === 'secretlint-recommend');
  assert.is(new Set(secretlint.map((rule: any) => rule.id)).size, secretlint.length);
  const github = secretlint.find((rule: any) => rule.id === 'github-token');
  assert.match(github.description, 'ghp_');
  assert.match(github.description, 'x-oauth-basic');

  writeFileSync(file, JSON.stringify({ rules: [{ id: 'acme-badge', pattern: 'BADGE-\\d{8}', samples: ['BADGE-1234'] }] }));
  for (const args of [
    ['redact', 'rules'],
    ['redact', 'check', 'sub/n.txt'],
  ]) {
    const refused = await box.run(args);
    assert.is(refused.code, 3, args.join(' '));
    assert.match(refused.stderr, /rule "acme-badge" of .*redact\.json does not match its sample number 1; .*\(redact_rule_invalid\)/);
  }
});

test('redact without --store says what to do; --store needs an initialized project', async () => {
  const box = sandbox();
  const bare = await box.run(['redact']);
  assert.is(bare.code, 2);
  assert.match(bare.stderr, /tracer redact --store rewrites the local store/);
  const store = await box.run(['redact', '--store']);
  assert.is.not(store.code, 0);
  assert.match(store.stderr, /project_not_initialized/);
  assert.is((await box.run(['init'])).code, 0);
  const clean = await box.run(['redact', '--store']);
  assert.is(clean.code, 0, clean.stderr);
  assert.match(clean.stdout, /summaries: nothing to redact/);
});

test('redact.pii is a setting of the project and of the user', async () => {
  const box = sandbox();
  assert.is((await box.run(['init'])).code, 0);
  for (const args of [
    ['config', 'set', 'redact.pii', 'true'],
    ['config', 'set', '--global', 'redact.pii', 'false'],
  ])
    assert.is((await box.run(args)).code, 0, args.join(' '));
  assert.is((await box.run(['config', 'get', 'redact.pii'])).stdout.trim(), 'true');
  const check = await box.run(['redact', 'check', '-', '--json'], { input: 'write to jane.roe@example.com\n' });
  assert.is(JSON.parse(check.stdout).findings[0].rule, 'email-address');
  const wrong = await box.run(['config', 'set', 'redact.pii', 'maybe']);
  assert.is(wrong.code, 2);
  assert.match(wrong.stderr, /invalid_setting_value/);
});

test.run();
