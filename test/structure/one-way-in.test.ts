import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildOutputs } from '../helpers/build-meta.js';
import { sourceFiles, SRC, valueImports } from './imports.js';

// Issue 30: one way to start a command. The command registry (src/cli/registry.ts) is the
// only reader of the command line and the only user of clipanion's parser; the build puts
// every source module in dist/ once; and no two files import each other in a circle.
const REGISTRY = join(SRC, 'cli', 'registry.ts');
const MAIN = join(SRC, 'cli', 'main.ts');
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

const code = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');

test("no file but the registry imports clipanion's parser or reads the command line", () => {
  const offenders = sourceFiles()
    .filter((file) => file !== REGISTRY)
    .flatMap((file) => {
      const text = code(file);
      const found: string[] = [];
      if (/import\s*\{[^}]*\b(Cli|Builtins)\b[^}]*\}\s*from\s*'clipanion'/.test(text.replace(/\btype\s+\w+/g, '')))
        found.push('clipanion parser');
      if (/process\.argv/.test(text)) found.push('process.argv');
      // main() hands its argv to the registry and does nothing else with it.
      if (/\bargv\b/.test(text) && !(file === MAIN && [...text.matchAll(/\bargv\b/g)].length === 2)) found.push('argv');
      return found.map((what) => `${relative(SRC, file)}: ${what}`);
    });
  assert.equal(offenders, []);
});

test('a command that boots the kernel says so, for the command table (static usesKernel)', () => {
  const commands = sourceFiles().filter((file) => file.startsWith(join(SRC, 'commands')));
  const boots = (text: string) => /\bthis\.kernel\(|loadServiceFamilies\(/.test(text);
  const declares = (text: string) => /static override usesKernel = true;/.test(text);
  const undeclared = commands.filter((file) => boots(code(file)) && !declares(code(file))).map((file) => relative(SRC, file));
  const needless = commands.filter((file) => !boots(code(file)) && declares(code(file))).map((file) => relative(SRC, file));
  assert.equal(undeclared, [], 'they boot the kernel without saying so');
  assert.equal(needless, [], 'they say so without booting it');
  assert.ok(commands.filter((file) => declares(code(file))).length >= 6, 'push, pull, sync, status, doctor and plugins at least');
});

test('dist/ holds every source module once: no second copy, and no file the build did not make', () => {
  const outputs = buildOutputs();
  const holders = new Map<string, string[]>();
  for (const [file, inputs] of outputs)
    for (const input of inputs) if (input.startsWith('src/')) holders.set(input, [...(holders.get(input) ?? []), file]);
  const twice = [...holders].filter(([, files]) => files.length > 1).map(([input, files]) => `${input} in ${files.join(', ')}`);
  assert.equal(twice, []);
  assert.ok(
    holders.has('src/cli/registry.ts') && holders.has('src/kernel/kernel.ts') && holders.has('src/plugins/traces.ts'),
    'the build holds the program',
  );
  const made = new Set(outputs.keys());
  const stray = (readdirSync(DIST, { recursive: true }) as string[])
    .map((file) => `dist/${file.split('\\').join('/')}`)
    .filter((file) => file.endsWith('.js') && !file.startsWith('dist/viewer/assets/') && !made.has(file));
  assert.equal(stray, [], 'every .js file of dist/ is one the build made');
});

test('no import circle between files, dynamic imports included, type-only imports left out', () => {
  const graph = new Map(sourceFiles().map((file) => [file, valueImports(file)]));
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open')
        circles.push([...path.slice(path.indexOf(next)), next].map((item) => relative(SRC, item)).join(' -> '));
      else if (!state.has(next)) walk(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) walk(file, [file]);
  assert.equal(circles, []);
});

test.run();
