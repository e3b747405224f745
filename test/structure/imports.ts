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

/**
 * The relative modules the file imports for their values, static or dynamic:
 * `import type`, `export type` and imports whose every name is `type` are left
 * out (they are erased at build time, and cannot make a circle at run time).
 */
export function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((specifier) => specifier.startsWith('.')).map((specifier) => targetOf(file, specifier));
}
