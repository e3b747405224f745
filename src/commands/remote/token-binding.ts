// How `remote add` and `remote set-token` bind a token (spec §5.1): `--token`
// keeps the secret in config.json under `tokens.<project_id>::<remote>`,
// `--token-env` records only a variable name. The secret never reaches remotes.json,
// stdout or stderr.
import { UsageError } from 'clipanion';
import { checkEnvVarName, checkTokenValue, formatTokenRef, globalTokenKey, parseTokenRef, type TokenRef } from '../../store/credentials.js';
import { updateGlobalConfig, type GlobalConfig } from '../../store/config-files.js';
import type { RemoteRecord, RemotesFile } from '../../store/remotes.js';

export type TokenChoice = { kind: 'global'; token: string } | { kind: 'env'; variable: string };

export const TOKEN_OPTION_DESCRIPTION =
  'The token for this remote; stored in $TRACER_HOME/config.json (mode 0600), never in the project or the repository';
export const TOKEN_ENV_OPTION_DESCRIPTION =
  'Name of an environment variable that holds the token; only the name is stored, the variable is read on every push and pull';

/** Validates the two flags; both at once is a usage error, neither is `undefined`. */
export function tokenChoice(token: string | undefined, tokenEnv: string | undefined): TokenChoice | undefined {
  if (token !== undefined && tokenEnv !== undefined) {
    throw new UsageError('Give either --token or --token-env, not both');
  }
  if (token !== undefined) return { kind: 'global', token: checkTokenValue(token) };
  if (tokenEnv !== undefined) return { kind: 'env', variable: checkEnvVarName(tokenEnv) };
  return undefined;
}

/** The `auth` block a remote gets for this choice. */
export function authFor(choice: TokenChoice, projectId: string, remoteName: string): NonNullable<RemoteRecord['auth']> {
  const ref: TokenRef =
    choice.kind === 'global' ? { kind: 'global', key: globalTokenKey(projectId, remoteName) } : { kind: 'env', variable: choice.variable };
  return { token_ref: formatTokenRef(ref) };
}

/** The config.json `tokens` key a remote's secret lives under, when it has a stored one. */
export function storedTokenKey(remote: RemoteRecord | undefined): string | undefined {
  const text = remote?.auth?.token_ref;
  if (typeof text !== 'string') return undefined;
  try {
    const ref = parseTokenRef(text);
    return ref.kind === 'global' ? ref.key : undefined;
  } catch {
    // A hand-edited, unparsable ref points at no stored secret we could clean up.
    return undefined;
  }
}

export async function storeToken(home: string, key: string, token: string): Promise<void> {
  await updateGlobalConfig(home, (config) => {
    config.tokens = { ...(config.tokens ?? {}), [key]: token };
  });
}

/**
 * Deletes stored secrets no remote of this project refers to any more. A key still
 * named by another remote (a hand-shared ref) is kept. Returns the keys deleted.
 */
export async function deleteStoredTokens(home: string, keys: readonly string[], stillBound: RemotesFile): Promise<string[]> {
  const inUse = new Set(Object.values(stillBound.remotes).map(storedTokenKey));
  const doomed = keys.filter((key) => !inUse.has(key));
  if (doomed.length === 0) return [];
  const deleted: string[] = [];
  await updateGlobalConfig(home, (config: GlobalConfig) => {
    for (const key of doomed) {
      if (config.tokens && key in config.tokens) {
        delete config.tokens[key];
        deleted.push(key);
      }
    }
    if (config.tokens && Object.keys(config.tokens).length === 0) delete config.tokens;
  });
  return deleted;
}

/** How a binding is described to the user: where the token lives, never the token. */
export function describeChoice(choice: TokenChoice | undefined, auth: RemoteRecord['auth']): string {
  if (!choice || !auth) return 'none (push and pull will be refused by the server until you run tracer remote set-token)';
  return choice.kind === 'global'
    ? `stored in config.json (${auth.token_ref})`
    : `read from $${choice.variable} on every push and pull (${auth.token_ref})`;
}
