import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertValidLedger } from '../capture/agent-trace-schema.js';
import { projectDir, readJsonl } from '../capture/hook-fixtures.js';
import { cleanEnv, cleanup, sandbox, settleSpool, tempDir } from '../helpers/cli.js';

/**
 * docs/plugins.md's example agent (examples/plugins/house-agent.ts), transpiled
 * and enabled through the user's plugin list: tracer plugins lists it, init
 * installs its hooks, its installed command records an edit that a commit turns
 * into AI lines naming it, uninstall takes its entries away.
 */
test.after(cleanup);

function compiledExample(): string {
  const source = readFileSync(fileURLToPath(new URL('../../examples/plugins/house-agent.ts', import.meta.url)), 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const path = join(tempDir('tracer-example-agent-'), 'house-agent.js');
  writeFileSync(path, outputText);
  return path;
}

function sh(command: string, cwd: string, home: string, input = ''): string {
  const env = {
    ...cleanEnv(),
    TRACER_HOME: home,
    GIT_AUTHOR_NAME: 'T',
    GIT_AUTHOR_EMAIL: 't@e',
    GIT_COMMITTER_NAME: 'T',
    GIT_COMMITTER_EMAIL: 't@e',
  };
  const result = spawnSync('sh', ['-c', command], { cwd, input, encoding: 'utf8', env });
  assert.is(result.status, 0, result.stderr);
  return result.stdout;
}

test('an agent brought by a plugin module is listed, installed, recorded and named in the ledger', async () => {
  const box = sandbox();
  const { repo, home } = box;
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'plugins.json'), JSON.stringify({ plugins: [compiledExample()] }));
  const listed = JSON.parse((await box.run(['plugins', '--json'])).stdout);
  assert.equal(
    listed.agents.find((agent: any) => agent.id === 'acme'),
    { id: 'acme', title: 'Acme Agent', plugin: 'acme-agent', installs: '.acme/hooks.json' },
  );
  const init = await box.run(['init', '--agents', 'acme']);
  assert.is(init.code, 0, init.stderr);
  const settings = JSON.parse(readFileSync(join(repo, '.acme/hooks.json'), 'utf8'));
  const command: string = settings.hooks.file_written[0].hooks[0].command;
  assert.ok(command.endsWith(' hook acme file_written'));

  writeFileSync(join(repo, 'a.txt'), 'one\n');
  sh('git add -A && git commit -qm one', repo, home);
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo from acme\n');
  const payload = { session: 's-42', cwd: repo, file: 'a.txt', text: 'two from acme\n', model: 'acme-coder-1' };
  assert.is(sh(command, repo, home, JSON.stringify(payload)), '');
  sh('git add -A && git commit -qm two', repo, home);
  // git's hooks spool the commit and fold it in the background: the ledger is read once that fold is done.
  settleSpool(home);

  const dir = projectDir(home);
  assert.not.ok(existsSync(join(dir, 'hook-errors.log')));
  const ledger = readJsonl(join(dir, 'ledgers.jsonl')).at(-1)!;
  assertValidLedger(ledger);
  const ai = ledger.record.files[0].conversations.find((entry: any) => entry.contributor.type === 'ai');
  assert.is(ai.url, 'acme://session/s-42');
  assert.equal(
    ai.ranges.map((range: any) => [range.start_line, range.end_line]),
    [[2, 2]],
  );

  const removed = await box.run(['init', '--uninstall', '--agents', 'acme']);
  assert.is(removed.code, 0, removed.stderr);
  assert.not.ok(existsSync(join(repo, '.acme/hooks.json')));
});

test.run();
