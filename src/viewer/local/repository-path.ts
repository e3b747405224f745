// A path from a URL, as a repository-relative path: `/`-separated, no `..`
// that climbs out, not absolute, no NUL. Anything else is refused before it
// reaches git or the file system.
import { posix } from 'node:path';
import { ExitCode, TracerError } from '../../core/errors.js';

export function repositoryPath(path: string): string {
  const cleaned = path.replace(/\\/g, '/');
  const normalized = posix.normalize(cleaned);
  if (
    cleaned === '' ||
    cleaned.includes('\0') ||
    cleaned.startsWith('/') ||
    /^[a-zA-Z]:/.test(cleaned) ||
    normalized === '..' ||
    normalized.startsWith('../') ||
    cleaned.split('/').includes('..') ||
    normalized === '.'
  ) {
    throw new TracerError('path_outside_repository', `${JSON.stringify(path)} is not a path inside the repository.`, {
      exitCode: ExitCode.usage,
    });
  }
  return normalized.replace(/\/$/, '');
}
