// An agent's JSON settings file as found on disk. We re-serialize it in the
// user's own indentation and final-newline style, so a file written by hand in
// the usual `JSON.stringify` layout comes back byte-identical.
import { readFileSync } from 'node:fs';
import { ExitCode, TracerError } from '../../core/errors.js';
import { isPlainObject } from '../../store/state-file.js';
import { errnoCode } from '../../files/index.js';

export interface JsonFile {
  path: string;
  /** Exact bytes found, or undefined when the file does not exist. */
  text: string | undefined;
  value: Record<string, unknown>;
}

export function readJsonFile(path: string): JsonFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { path, text: undefined, value: {} };
    throw new TracerError(
      'agent_config_unreadable',
      `Cannot read ${path} (${errnoCode(error) ?? (error as Error).message}); check its permissions and run the command again.`,
      {
        exitCode: ExitCode.localState,
      },
    );
  }
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw invalid(path, 'is not valid JSON');
  }
  if (!isPlainObject(value)) throw invalid(path, 'does not hold a JSON object');
  return { path, text, value };
}

export function invalid(path: string, what: string): TracerError {
  return new TracerError(
    'agent_config_invalid',
    `${path} ${what}; fix it by hand (tracer never rewrites a file it cannot read) and run the command again.`,
    {
      exitCode: ExitCode.localState,
    },
  );
}

export function serializeLike(value: unknown, original: string | undefined): string {
  const indent = original === undefined ? '  ' : (/\n([ \t]+)\S/.exec(original)?.[1] ?? '  ');
  const newline = original === undefined || original.endsWith('\n') ? '\n' : '';
  return `${JSON.stringify(value, null, indent)}${newline}`;
}

/** Same members in the same order, recursively: what "unchanged" means for a settings file. */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
