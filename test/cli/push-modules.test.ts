import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { addLedger, addTrace, machine } from '../helpers/sync-fixtures.js';

// In the build (scripts/build.mjs), crypto and child_process load on first use and tapable is
// compiled in: a `tracer push` with nothing to send must load none of them (nor any package's
// CommonJS file), and a push with rows (content ids hashed, the kernel's hooks called) must work.

test.after(async () => {
  await stopAllServices();
  cleanup();
});

/** A preload that prints, at exit, the built-ins and CommonJS files the process loaded. */
function loadProbe(): string {
  const probe = join(tempDir('push-modules-'), 'probe.cjs');
  writeFileSync(
    probe,
    [
      "process.on('exit', () => {",
      "  const builtins = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice(13));",
      "  process.stderr.write('LOADED ' + JSON.stringify({ builtins, files: Object.keys(require.cache) }) + '\\n');",
      '});',
    ].join('\n'),
  );
  return probe;
}

function loaded(stderr: string): { builtins: string[]; files: string[] } {
  const line = stderr.split('\n').find((text) => text.startsWith('LOADED '));
  assert.ok(line, stderr);
  return JSON.parse(line!.slice(7));
}

test('a no-op push loads neither crypto, child_process nor a file of tapable; a push with rows still hashes and sends them', async () => {
  const service = await startService();
  await service.createProject('acme', 'modules');
  const token = await service.createToken({ org: 'acme', project: 'modules' });
  const m = await machine({ remoteUrl: `${service.url}/acme/modules`, token });
  const trace = addTrace(m);
  addLedger(m, [trace.id]);
  const env = { NODE_OPTIONS: `--require ${loadProbe()}` };

  const first = await m.run(['push'], { env });
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /Pushed 2 items/);
  // The rows' content ids were checked: crypto was loaded when first needed.
  assert.ok(loaded(first.stderr).builtins.includes('crypto'), 'a push that hashes loads crypto');

  const again = await m.run(['push'], { env });
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /Pushed 0 items/);
  const { builtins, files } = loaded(again.stderr);
  assert.equal(
    builtins.filter((name) => ['crypto', 'child_process', 'https', 'zlib'].includes(name)),
    [],
  );
  assert.equal(
    files.filter((file) => file.includes('node_modules')),
    [],
  );
});

test.run();
