import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMain, type RunResult } from '../helpers/cli.js';

/** Recorded agent payloads (test/fixtures/hooks/<agent>/<event>.json) with their placeholders filled in. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/hooks/', import.meta.url));

export function fixturePath(agent: string, name: string): string {
  return join(FIXTURES, agent, name);
}

export function payload(agent: string, name: string, values: { repo: string; transcript?: string }): string {
  return readFileSync(fixturePath(agent, `${name}.json`), 'utf8')
    .replaceAll('__REPO__', values.repo)
    .replaceAll('__TRANSCRIPT__', values.transcript ?? join(values.repo, 'no-transcript.jsonl'));
}

/** Runs `tracer hook <agent> <event>` as an agent does and checks the hook's promises: exit 0, silent stdout. */
export async function hook(
  agent: string,
  event: string,
  input: string | Buffer,
  options: { cwd: string; home: string; env?: Record<string, string> },
): Promise<RunResult> {
  const result = await runMain(['hook', agent, event], { ...options, input });
  if (result.code !== 0 || result.stdout !== '')
    throw new Error(
      `tracer hook ${agent} ${event} exited ${result.code} with stdout ${JSON.stringify(result.stdout)}, stderr ${result.stderr}`,
    );
  return result;
}

/** The one project folder under `<home>/projects`. */
export function projectDir(home: string): string {
  const names = readdirSync(join(home, 'projects'));
  if (names.length !== 1) throw new Error(`expected one project, found ${names.join(', ')}`);
  return join(home, 'projects', names[0]!);
}

export function readJsonl(path: string): Array<Record<string, any>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}
