// `redact.pii`: the project's setting (project-config.json) wins over the
// user's (config.json); off unless one says true. Read leniently, as capture
// reads everything: a file that does not parse counts as not set.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { homePaths, PROJECT_STATE_FILES } from '../store/home.js';

export async function piiEnabled(home: string, projectDir: string | undefined): Promise<boolean> {
  const project = projectDir === undefined ? undefined : await readPii(join(projectDir, PROJECT_STATE_FILES.config));
  return project ?? (await readPii(homePaths(home).config)) ?? false;
}

async function readPii(path: string): Promise<boolean | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as { redact?: { pii?: unknown } } | null;
    const pii = value?.redact?.pii;
    return typeof pii === 'boolean' ? pii : undefined;
  } catch {
    return undefined;
  }
}
