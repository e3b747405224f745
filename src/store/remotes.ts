// `remotes.json` (spec §2.2, mode 0600): named HTTP remotes with the URL, the
// slugs and base URL derived from it, and the token reference. The secret itself
// never lives here (spec §5).
import { join } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { parseRemoteUrl } from '../core/remote-url.js';
import { PRIVATE_FILE_MODE, PROJECT_STATE_FILES } from './home.js';
import { isPlainObject, readStateFile, updateStateFile, type StateFileOptions } from './state-file.js';

export interface RemoteRecord {
  url: string;
  org_slug: string;
  project_slug: string;
  base_url: string;
  auth?: { token_ref: string };
}

export interface RemotesFile {
  remotes: Record<string, RemoteRecord>;
}

export const REMOTE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const options: StateFileOptions<RemotesFile> & { mode: number } = {
  empty: () => ({ remotes: {} }),
  isValid: (value): value is RemotesFile =>
    isPlainObject(value) &&
    isPlainObject(value.remotes) &&
    Object.values(value.remotes).every((remote) => isPlainObject(remote) && typeof remote.url === 'string'),
  mode: PRIVATE_FILE_MODE,
};

export const remotesPath = (projectDir: string) => join(projectDir, PROJECT_STATE_FILES.remotes);
export const readRemotes = (projectDir: string) => readStateFile(remotesPath(projectDir), options);
export const updateRemotes = (projectDir: string, change: (file: RemotesFile) => void) =>
  updateStateFile(remotesPath(projectDir), options, change);

/** A record for `url`, keeping `auth` as given. The URL grammar is checked here. */
export function remoteRecord(url: string, auth?: RemoteRecord['auth']): RemoteRecord {
  const parsed = parseRemoteUrl(url);
  const record: RemoteRecord = { url: parsed.url, org_slug: parsed.org_slug, project_slug: parsed.project_slug, base_url: parsed.base_url };
  if (auth) record.auth = auth;
  return record;
}

export function checkRemoteName(name: string): string {
  if (!REMOTE_NAME_PATTERN.test(name)) {
    throw new TracerError(
      'invalid_remote_name',
      `"${name}" is not a valid remote name; use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit.`,
      {
        exitCode: ExitCode.usage,
      },
    );
  }
  return name;
}

export function requireRemote(file: RemotesFile, name: string): RemoteRecord {
  const remote = file.remotes[name];
  if (!remote) {
    const known = Object.keys(file.remotes);
    throw new TracerError(
      'remote_not_found',
      known.length === 0
        ? `There is no remote named "${name}" (this project has none); add one with tracer remote add <name> <url>.`
        : `There is no remote named "${name}"; name one of ${known.join(', ')} with --remote, or add it with tracer remote add ${name} <url>.`,
      { exitCode: ExitCode.usage },
    );
  }
  return remote;
}

/** Spec §4.2: the named remote, else `remote.default`, else the sole remote, else an error that says how to choose. */
export function chooseRemoteName(file: RemotesFile, requested: string | undefined, configuredDefault: string | undefined): string {
  if (requested !== undefined) return requested;
  if (configuredDefault !== undefined) return configuredDefault;
  const names = Object.keys(file.remotes);
  if (names.length === 1) return names[0]!;
  if (names.length === 0) {
    throw new TracerError('no_remote', 'This project has no remote yet; add one with tracer remote add <name> <url> --token <TOKEN>.', {
      exitCode: ExitCode.usage,
    });
  }
  throw new TracerError(
    'remote_ambiguous',
    `This project has ${names.length} remotes (${names.join(', ')}) and no default; pass --remote <name>, or set one with tracer config set remote.default <name>.`,
    { exitCode: ExitCode.usage },
  );
}
