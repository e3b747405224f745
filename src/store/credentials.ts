// Token references and the precedence rules of spec §5.2, in one place.
//
// 1. The remote's own `auth.token_ref` is the only source of its token; no
//    environment variable overrides it.
// 2. `TRACER_TOKEN` is never consulted here: it is left for old scripts only.
// 3. `TRACER_ADMIN_SECRET` is returned only for project creation.
// 4. The legacy global slot (`auth_token`) is never read here.
import { ExitCode, TracerError } from '../core/errors.js';
import type { GlobalConfig } from './config-files.js';
import type { RemoteRecord } from './remotes.js';

export type TokenRef = { kind: 'global'; key: string } | { kind: 'env'; variable: string };

/** What the token is for: decides whether the admin secret may be read (rule 3). */
export type CredentialPurpose = 'sync' | 'doctor' | 'remote-add' | 'project-create';

export interface Credentials {
  token?: string;
  /** Where the token came from, for messages: never the token itself. */
  source: string;
  adminSecret?: string;
}

export const ENV_VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function globalTokenKey(projectId: string, remoteName: string): string {
  return `${projectId}::${remoteName}`;
}

export function formatTokenRef(ref: TokenRef): string {
  return ref.kind === 'global' ? `global:${ref.key}` : `env:${ref.variable}`;
}

export function parseTokenRef(text: string): TokenRef {
  if (text.startsWith('global:') && text.length > 'global:'.length) return { kind: 'global', key: text.slice('global:'.length) };
  if (text.startsWith('env:') && ENV_VAR_PATTERN.test(text.slice('env:'.length)))
    return { kind: 'env', variable: text.slice('env:'.length) };
  throw new TracerError(
    'invalid_token_ref',
    `"${text}" is not a token reference (global:<project_id>::<remote> or env:<VAR>); rebind with tracer remote set-token.`,
    {
      exitCode: ExitCode.localState,
    },
  );
}

export function checkTokenValue(token: string): string {
  if (token === '' || /[\s\p{Cc}]/u.test(token)) {
    throw new TracerError(
      'invalid_token',
      'A token must be non-empty and contain no spaces or control characters; copy it again without surrounding whitespace.',
      {
        exitCode: ExitCode.usage,
      },
    );
  }
  return token;
}

export function checkEnvVarName(name: string): string {
  if (!ENV_VAR_PATTERN.test(name)) {
    throw new TracerError(
      'invalid_env_var',
      `"${name}" is not an environment variable name; use letters, digits and _, not starting with a digit.`,
      {
        exitCode: ExitCode.usage,
      },
    );
  }
  return name;
}

export interface CredentialQuery {
  remoteName: string;
  remote: RemoteRecord;
  purpose: CredentialPurpose;
  env: NodeJS.ProcessEnv;
  globalConfig: GlobalConfig;
}

export function resolveCredentials({ remoteName, remote, purpose, env, globalConfig }: CredentialQuery): Credentials {
  const credentials = tokenFromRef(remoteName, remote, env, globalConfig);
  if (purpose === 'project-create' && env.TRACER_ADMIN_SECRET) credentials.adminSecret = env.TRACER_ADMIN_SECRET;
  return credentials;
}

function tokenFromRef(remoteName: string, remote: RemoteRecord, env: NodeJS.ProcessEnv, globalConfig: GlobalConfig): Credentials {
  if (!remote.auth?.token_ref) return { source: 'none' };
  const ref = parseTokenRef(remote.auth.token_ref);
  if (ref.kind === 'env') {
    const token = env[ref.variable];
    if (!token) {
      throw new TracerError(
        'token_env_unset',
        `Remote "${remoteName}" reads its token from $${ref.variable}, which is not set; export it, or bind a stored token with tracer remote set-token ${remoteName} --token <TOKEN>.`,
        { exitCode: ExitCode.auth },
      );
    }
    return { token, source: `env:${ref.variable}` };
  }
  const token = globalConfig.tokens?.[ref.key];
  if (!token) {
    throw new TracerError(
      'token_missing',
      `Remote "${remoteName}" expects a token in config.json under tokens.${ref.key}, and there is none; bind one with tracer remote set-token ${remoteName} --token <TOKEN>.`,
      { exitCode: ExitCode.auth },
    );
  }
  return { token, source: 'config.json' };
}

/** Enough to recognise a token, never enough to use it. */
export function maskToken(token: string): string {
  return token.length >= 16 ? `****${token.slice(-4)}` : '****';
}
