// Reads the relative imports of the source tree (static, dynamic and type-only) with
// TypeScript's own scanner, so that layering rules are checked on what the code says.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

export function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Every module specifier the file names. */
export function specifiers(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((entry) => entry.fileName);
}

/** The top-level folder under src/ that a file belongs to (`kernel`, `engine`, ...). */
export function folderOf(file: string): string {
  return relative(SRC, file).split(/[\\/]/)[0]!;
}

/** Where a relative specifier of `file` points, under src/, as a .ts path. */
export function targetOf(file: string, specifier: string): string {
  return resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
}
