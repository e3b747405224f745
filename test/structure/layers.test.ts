import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { folderOf, sourceFiles, specifiers, SRC, targetOf } from './imports.js';

// Issue 12: the kernel is only the hook bus, and the layers below the commands never
// import each other in a circle, so each can be read (and replaced) on its own.
const LAYERS = ['kernel', 'engine', 'protocol', 'store', 'net', 'core'];

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles()) {
    const from = folderOf(file);
    for (const specifier of specifiers(file)) {
      if (!specifier.startsWith('.')) continue;
      const to = folderOf(targetOf(file, specifier));
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from)!.add(to);
    }
  }
  return graph;
}

test('no import cycle between the folders kernel, engine, protocol, store, net and core', () => {
  const graph = folderGraph();
  const cycles: string[] = [];
  for (const start of LAYERS) {
    const walk = (node: string, path: string[]) => {
      for (const next of graph.get(node) ?? []) {
        if (!LAYERS.includes(next)) continue;
        if (next === start) cycles.push([...path, next].join(' -> '));
        else if (!path.includes(next)) walk(next, [...path, next]);
      }
    };
    walk(start, [start]);
  }
  assert.equal(cycles, []);
});

test('the kernel imports nothing but itself, core and the store types', () => {
  const stray = sourceFiles()
    .filter((file) => folderOf(file) === 'kernel')
    .flatMap((file) =>
      specifiers(file)
        .filter((specifier) => specifier.startsWith('.'))
        .filter((specifier) => !['kernel', 'core', 'store'].includes(folderOf(targetOf(file, specifier))))
        .map((specifier) => `${relative(SRC, file)} imports ${specifier}`),
    );
  assert.equal(stray, []);
});

test('the kernel names no route, status code or wire body', () => {
  const offenders = sourceFiles()
    .filter((file) => folderOf(file) === 'kernel')
    .filter((file) => /\/api\/v1|next_cursor|has_more|"items"|\b(404|405|501|422|413)\b/.test(readFileSync(file, 'utf8')))
    .map((file) => relative(SRC, file));
  assert.equal(offenders, []);
});

test.run();
