// Issue 29, item 8: redaction is a plugin like every other rule. docs/plugins.md's
// example detector (examples/plugins/acme-detector.ts), transpiled and enabled in
// the user's plugin list, is listed by `tracer redact rules`, found by `tracer
// redact check`, applied at capture through the installed hook, and refused by a
// service started with it; a plugin whose tap fails is reported and the built-in
// layers still run; `!redact` switches the built-in layers off and nothing else.
// The commands run as the binary: the plugin imports `tracer/plugin/redact` from the
// package (dist/), the one copy the binary runs; in this process the sources run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withContentId } from '../../src/core/content-id.js';
import { projectDir, readJsonl } from '../capture/hook-fixtures.js';
import { cleanEnv, cleanup, sandbox, tempDir } from '../helpers/cli.js';
import { spawnService, stopAllServices } from '../helpers/service.js';
import { spoolFolded } from '../helpers/spool.js';

test.after(async () => {
  await stopAllServices();
  cleanup();
});

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = `ACMEDK-${'0123456789abcdef'.repeat(2)}01234567`;
const GITHUB = `ghp_${'M1n2B3v4C5'.repeat(3)}x6Z7a8`;

/** The example, transpiled into a folder where `tracer/plugin/redact` resolves (tracer installed beside it). */
function compiled(name: string, source?: string): string {
  const dir = tempDir('tracer-detector-');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PACKAGE_ROOT, join(dir, 'node_modules', 'tracer'), 'dir');
  const text = source ?? readFileSync(join(PACKAGE_ROOT, 'examples/plugins/acme-detector.ts'), 'utf8');
  const { outputText } = ts.transpileModule(text, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const path = join(dir, `${name}.js`);
  writeFileSync(path, outputText);
  return path;
}

async function boxWith(plugins: string[]) {
  const box = sandbox();
  mkdirSync(box.home, { recursive: true });
  writeFileSync(join(box.home, 'plugins.json'), JSON.stringify({ plugins }));
  return box;
}

test('the example detector is listed with where it comes from, and tracer redact check finds its key', async () => {
  const box = await boxWith([compiled('acme-detector')]);
  const rules = await box.spawn(['redact', 'rules', '--json']);
  assert.is(rules.code, 0, rules.stderr);
  const listed = JSON.parse(rules.stdout).rules;
  assert.equal(
    listed.find((rule: any) => rule.id === 'acme-deploy-key'),
    {
      id: 'acme-deploy-key',
      description: 'Acme deploy key (ACMEDK- and 40 hex digits)',
      detector: 'acme-deploy-keys',
      source: 'acme-detector plugin',
    },
  );
  assert.ok(
    listed.some((rule: any) => rule.id === 'github-token'),
    'the built-in layers are there too',
  );
  writeFileSync(join(box.repo, 'deploy.sh'), `#!/bin/sh\ncurl -H "X-Key: ${KEY}" https://deploy.acme.example\n`);
  const check = await box.spawn(['redact', 'check', 'deploy.sh', '--json']);
  assert.is(check.code, 1);
  assert.equal(
    JSON.parse(check.stdout).findings.map((finding: any) => [finding.rule, finding.line, finding.column]),
    [['acme-deploy-key', 2, 17]],
  );
  assert.not.ok(check.stdout.includes(KEY));
});

test("capture applies the organization's detector through the installed hook", async () => {
  const box = await boxWith([compiled('acme-detector')]);
  assert.is((await box.run(['init', '--agents', 'claude-code'])).code, 0);
  const transcript = join(tempDir('tracer-transcript-'), 't.jsonl');
  writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: `deploy with ${KEY} and ${GITHUB}` } })}\n`,
  );
  const settings = JSON.parse(readFileSync(join(box.repo, '.claude/settings.json'), 'utf8'));
  const command: string = settings.hooks.Stop[0].hooks[0].command;
  const payload = { session_id: 's-1', transcript_path: transcript, cwd: box.repo, hook_event_name: 'Stop', stop_hook_active: false };
  const run = spawnSync('sh', ['-c', command], {
    cwd: box.repo,
    input: JSON.stringify(payload),
    env: { ...cleanEnv(), TRACER_HOME: box.home },
  });
  assert.is(run.status, 0);
  await spoolFolded(box.home);
  const dir = projectDir(box.home);
  const [row] = readJsonl(join(dir, 'conversations.jsonl'));
  const sha = row!.content_sha256 as string;
  const snapshot = readFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), 'utf8');
  assert.match(snapshot, /deploy with \[REDACTED:acme-deploy-key:[0-9a-f]{6}\] and \[REDACTED:github-token:[0-9a-f]{6}\]/);
  assert.equal(readJsonl(join(dir, 'hook-errors.log')), []);
});

test('a service started with the plugin refuses an upload that holds its key', async () => {
  const service = await spawnService({ plugins: [compiled('acme-detector')] });
  await service.createProject('acme', 'web');
  const token = await service.createToken({ org: 'acme', project: 'web', name: 'x' });
  const summary = withContentId({ ts: '2024-05-01T12:00:00Z', conversation_url: 'x://session/1', summary: `key ${KEY}` }, 'id');
  const response = await fetch(`${service.url}/api/v1/sync/summaries`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-tracer-org': 'acme', 'x-tracer-project': 'web', 'content-type': 'application/json' },
    body: JSON.stringify({ items: [summary] }),
  });
  const problem = (await response.json()) as any;
  assert.is(response.status, 422);
  assert.is(problem.code, 'secret_detected');
  assert.match(problem.detail, /acme-deploy-key/);
});

test('a detector plugin whose tap fails is reported (redact_plugin_failed); the built-in layers still run', async () => {
  const broken = compiled(
    'broken-detector',
    "import { redactionHooks } from 'tracer/plugin/redact';\nexport default { name: 'broken-detector', apply(kernel) { redactionHooks(kernel).detectors.tap('broken-detector', () => { throw new Error('no config'); }); } };\n",
  );
  const box = await boxWith([broken]);
  writeFileSync(join(box.repo, 'notes.txt'), `token ${GITHUB}\n`);
  const check = await box.spawn(['redact', 'check', 'notes.txt']);
  assert.is(check.code, 1);
  assert.match(check.stdout, /github-token/);
  assert.match(check.stderr, /Plugin "broken-detector" failed to add its redaction detectors \(no config\).*\(redact_plugin_failed\)/);
});

test('!redact switches the built-in layers off, and nothing else', async () => {
  const box = await boxWith(['!redact']);
  const rules = await box.spawn(['redact', 'rules']);
  assert.is(rules.code, 0, rules.stderr);
  assert.match(rules.stdout, /No redaction rules: no enabled plugin brings a detector/);
  writeFileSync(join(box.repo, 'notes.txt'), `token ${GITHUB}\n`);
  assert.is((await box.spawn(['redact', 'check', 'notes.txt'])).code, 0);
  const listed = JSON.parse((await box.run(['plugins', '--json'])).stdout);
  assert.ok(JSON.stringify(listed).includes('conversations'), 'the families are all there');
  assert.ok(readdirSync(PACKAGE_ROOT).includes('plugins.json'));
});

test.run();
