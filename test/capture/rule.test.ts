import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain, sandbox, tempDir } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from '../cli/expect.js';

test.after(cleanup);

const read = (path: string) => readFileSync(path, 'utf8');
const RULE_FILES = (name: string) => [
  `.cursor/rules/tracer-${name}.mdc`,
  `.claude/rules/tracer-${name}.md`,
  `.codex/rules/tracer-${name}.md`,
];

test('rule add writes the built-in rule for the three agents, Cursor with front matter; adding it again changes nothing', async () => {
  const { repo, run } = sandbox();
  const added = await run(['rule', 'add', 'context']);
  assertOk(added);
  for (const file of RULE_FILES('context')) assert.ok(existsSync(join(repo, file)), file);
  const cursor = read(join(repo, '.cursor/rules/tracer-context.mdc'));
  assert.match(cursor, /^---\ndescription: .+\nglobs:\nalwaysApply: true\n---\n\n# /);
  const claude = read(join(repo, '.claude/rules/tracer-context.md'));
  assert.match(claude, /tracer context/);
  assert.not.match(claude, /^---/);
  assert.ok(cursor.endsWith(claude), 'the same body for every agent');
  assert.is(read(join(repo, '.codex/rules/tracer-context.md')), claude);

  const again = await run(['rule', 'add', 'context']);
  assertOk(again);
  assert.is((again.stdout.match(/unchanged/g) ?? []).length, 3);
});

test('rule add --text / --from; a different rule is refused without --force and nothing is half-written', async () => {
  const { repo, run } = sandbox();
  assertOk(await run(['rule', 'add', 'style', '--text', 'Use tabs.']));
  assert.is(read(join(repo, '.claude/rules/tracer-style.md')), 'Use tabs.\n');

  const refused = await run(['rule', 'add', 'style', '--text', 'Use spaces.']);
  assertOneLineError(refused, 'rule_exists', 2);
  for (const file of RULE_FILES('style').slice(1)) assert.is(read(join(repo, file)), 'Use tabs.\n');

  const source = join(tempDir('tracer-rule-src-'), 'review.mdc');
  writeFileSync(source, '---\ndescription: Review rule\nglobs: src/**\nalwaysApply: false\n---\n\n# Review\nCheck attribution.\n');
  assertOk(await run(['rule', 'add', 'style', '--from', source, '--force']));
  assert.is(read(join(repo, '.cursor/rules/tracer-style.mdc')), read(source), "a source's own front matter is kept for Cursor");
  assert.is(read(join(repo, '.codex/rules/tracer-style.md')), '# Review\nCheck attribution.\n');

  assertOneLineError(await run(['rule', 'add', 'x', '--text', 'a', '--from', source]), 'rule_source_conflict', 2);
  assertOneLineError(await run(['rule', 'add', 'x', '--from', join(repo, 'missing.md')]), 'rule_source_unreadable', 2);
  assertOneLineError(await run(['rule', 'add', 'x', '--text', '  ']), 'rule_text_empty', 2);
  for (const bad of ['Bad', 'a/b', '../x', 'a--b', 'a-', 'x'.repeat(65)])
    assertOneLineError(await run(['rule', 'add', bad]), 'invalid_rule_name', 2);
  assert.not.ok(existsSync(join(repo, '.claude/rules/tracer-x.md')));
});

test("rule list shows which agents have which tracer rule and ignores the user's own rules", async () => {
  const { repo, run } = sandbox();
  const empty = await run(['rule', 'list']);
  assertOk(empty);
  assert.match(empty.stdout, /No tracer rules/);
  mkdirSync(join(repo, '.cursor/rules'), { recursive: true });
  writeFileSync(join(repo, '.cursor/rules/mine.mdc'), 'my rule\n');
  assertOk(await run(['rule', 'add', 'context']));
  assertOk(await run(['rule', 'add', 'review', '--text', 'Review.', '--agents', 'cursor,codex']));

  const listed = await run(['rule', 'list']);
  assertOk(listed);
  assert.is(listed.stdout, 'NAME     AGENTS\ncontext  claude-code, cursor, codex\nreview   cursor, codex\n');
  const asJson = JSON.parse((await run(['rule', 'list', '--json'])).stdout);
  assert.equal(asJson[1], {
    name: 'review',
    agents: [
      { agent: 'cursor', path: '.cursor/rules/tracer-review.mdc' },
      { agent: 'codex', path: '.codex/rules/tracer-review.md' },
    ],
  });
});

test('rule remove deletes only that rule (folders left empty go too); an unknown rule is an error', async () => {
  const { repo, run } = sandbox();
  mkdirSync(join(repo, '.cursor/rules'), { recursive: true });
  writeFileSync(join(repo, '.cursor/rules/mine.mdc'), 'my rule\n');
  assertOk(await run(['rule', 'add', 'context']));
  assertOk(await run(['rule', 'add', 'other', '--text', 'Other.']));

  assertOk(await run(['rule', 'remove', 'context', '--agents', 'codex']));
  assert.not.ok(existsSync(join(repo, '.codex/rules/tracer-context.md')));
  assert.ok(existsSync(join(repo, '.claude/rules/tracer-context.md')));

  assertOk(await run(['rule', 'remove', 'context']));
  assertOk(await run(['rule', 'remove', 'other']));
  assert.is(read(join(repo, '.cursor/rules/mine.mdc')), 'my rule\n');
  assert.not.ok(existsSync(join(repo, '.claude')));
  assert.not.ok(existsSync(join(repo, '.codex')));
  assertOneLineError(await run(['rule', 'remove', 'context']), 'rule_not_found', 2);
});

test('rules need a git repository', async () => {
  const { home } = sandbox();
  const outside = tempDir('tracer-plain-');
  assertOneLineError(await runMain(['rule', 'add', 'context'], { cwd: outside, home }), 'not_a_git_repository');
});

test('an agent two plugins bring is refused as the kernel refuses it (duplicate_agent), and nothing is written', async () => {
  const { home, repo, run } = sandbox();
  const plugin = join(tempDir(), 'second-claude.mjs');
  writeFileSync(
    plugin,
    "export default { name: 'second-claude', apply() {}, agents: [{ id: 'claude-code', normalize() {}, install: { files: [] }, rules: { dir: '.claude/rules', extension: '.md' } }] };\n",
  );
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: [plugin] }));
  assertOneLineError(await run(['rule', 'add', 'ctx']), 'duplicate_agent');
  assert.not.ok(existsSync(join(repo, '.claude/rules/tracer-ctx.md')), 'nothing written');
  assertOneLineError(await run(['rule', 'list']), 'duplicate_agent');
});

test.run();
