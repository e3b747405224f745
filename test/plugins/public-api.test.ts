import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SRC, sourceFiles, specifiers } from '../structure/imports.js';

// Issue 12: the built-in plugins use exactly the public plugin API an organization
// gets from 'tracer/plugin' (and, for the HTTP transport, 'tracer/protocol'), so a
// custom plugin can do anything a built-in does.
const PUBLIC = new Set(['../plugin/index.js', '../protocol/index.js']);

const builtins = sourceFiles().filter((file) => relative(SRC, file).startsWith('plugins/'));

test('every built-in plugin imports only the public plugin API and node built-ins', () => {
  assert.ok(builtins.length >= 10, 'the built-ins were found');
  const deep = builtins.flatMap((file) =>
    specifiers(file)
      .filter((specifier) => !specifier.startsWith('node:') && !PUBLIC.has(specifier))
      .map((specifier) => `${basename(file)} imports ${specifier}`),
  );
  assert.equal(deep, []);
});

test('every built-in listed in plugins.json exists, and every built-in file is listed', () => {
  const listed: string[] = JSON.parse(readFileSync(new URL('../../plugins.json', import.meta.url), 'utf8')).plugins;
  assert.equal([...listed].sort(), builtins.map((file) => basename(file, '.ts')).sort());
});

test.run();
