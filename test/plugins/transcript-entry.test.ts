import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempDir } from '../helpers/cli.js';

// An agent plugin's transcript reader imports 'tracer/plugin/transcript'; its
// adapter imports 'tracer/plugin/agent', which the hook loads on every tool use
// and which must load nothing of the readers.
test.after(cleanup);

test("'tracer/plugin/transcript' is a package entry with the readers' helpers", async () => {
  const entry = (await import('tracer/plugin/transcript')) as Record<string, unknown>;
  for (const name of [
    'replaceEdit',
    'writeEdit',
    'multiEdit',
    'patchEdit',
    'searchReplaceEdit',
    'textOf',
    'isObject',
    'str',
    'millisToIso',
    'sqliteRows',
    'jsonLines',
  ])
    assert.type(entry[name], 'function', name);
  assert.equal(
    (entry.patchEdit as (patch: string) => { files: string[] })(
      '*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** End Patch',
    ).files,
    ['a.txt', 'b.txt'],
  );
});

test("importing 'tracer/plugin/agent' loads no transcript reader module, nor better-sqlite3", () => {
  const dir = tempDir('agent-entry-');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    "export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('MODULE ' + r.url + '\\n'); return r; }\n",
  );
  writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
  const result = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(join(dir, 'register.mjs')).href, '-e', "await import('tracer/plugin/agent')"],
    {
      cwd: process.cwd(),
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      input: '',
    },
  );
  assert.is(result.status, 0, result.stderr);
  const modules = result.stderr.split('\n').filter((line) => line.startsWith('MODULE '));
  assert.ok(
    modules.some((line) => line.includes('/dist/plugin/agent.js')),
    'the entry was loaded',
  );
  assert.equal(
    modules.filter((line) => /\/(transcript|transcripts)\/|plugin\/transcript|better-sqlite3/.test(line)),
    [],
  );
});

test.run();
