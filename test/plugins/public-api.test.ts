import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SRC, sourceFiles, specifiers } from '../structure/imports.js';

// Issue 12: the built-in plugins use exactly the public plugin API an organization
// gets from 'tracer/plugin' (and, for the HTTP transport, 'tracer/protocol'), so a
// custom plugin can do anything a built-in does.
// Agent adapters (plugins/agents/) run on every agent tool use: they import the
// light entry 'tracer/plugin/agent', which 'tracer/plugin' re-exports. The
// redaction plugin is applied by the capture hooks too: 'tracer/plugin/redact'.
// Agents' transcript readers (plugins/agents/transcripts/<id>.ts, loaded on first
// use) import 'tracer/plugin/transcript', and may share another reader's code.
const PUBLIC = new Set([
  '../plugin/index.js',
  '../protocol/index.js',
  '../../plugin/agent.js',
  '../plugin/redact.js',
  '../../../plugin/transcript.js',
]);
const READERS = 'plugins/agents/transcripts/';

const builtins = sourceFiles().filter((file) => relative(SRC, file).startsWith('plugins/'));
const readers = builtins.filter((file) => relative(SRC, file).startsWith(READERS));

test('every built-in plugin imports only the public plugin API and node built-ins', () => {
  assert.ok(builtins.length >= 10, 'the built-ins were found');
  const deep = builtins.flatMap((file) =>
    specifiers(file)
      .filter((specifier) => !specifier.startsWith('node:') && !PUBLIC.has(specifier))
      .filter((specifier) => !(readers.includes(file) && /^\.\/[a-z0-9-]+\.js$/.test(specifier)))
      .filter((specifier) => !(/plugins\/agents\/[a-z0-9-]+\.ts$/.test(file) && /^\.\/transcripts\/[a-z0-9-]+\.js$/.test(specifier)))
      .map((specifier) => `${basename(file)} imports ${specifier}`),
  );
  assert.equal(deep, []);
});

test("every built-in listed in plugins.json exists, and every built-in file is listed (a transcript reader is its agent's)", () => {
  const listed: string[] = JSON.parse(readFileSync(new URL('../../plugins.json', import.meta.url), 'utf8')).plugins;
  const plugins = builtins.filter((file) => !readers.includes(file));
  assert.equal([...listed].sort(), plugins.map((file) => relative(join(SRC, 'plugins'), file).replace(/\.ts$/, '')).sort());
  const orphans = readers.map((file) => `agents/${basename(file, '.ts')}`).filter((agent) => !listed.includes(agent));
  assert.equal(orphans, []);
  assert.ok(readers.length >= 12, 'every built-in agent has its reader');
});

test.run();
