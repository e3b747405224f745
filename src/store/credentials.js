import { ExitCode, TracerError } from '../core/errors.js';
export const ENV_VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export function globalTokenKey(projectId, remoteName) {
  return `${projectId}::${remoteName}`;
}
export function formatTokenRef(ref) {
  return ref.kind === 'global' ? `global:${ref.key}` : `env:${ref.variable}`;
}
export function parseTokenRef(text) {
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
export function checkTokenValue(token) {
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
export function checkEnvVarName(name) {
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
export function resolveCredentials({ remoteName, remote, purpose, env, globalConfig }) {
  const credentials = tokenFromRef(remoteName, remote, env, globalConfig);
  if (purpose === 'project-create' && env.TRACER_ADMIN_SECRET) credentials.adminSecret = env.TRACER_ADMIN_SECRET;
  return credentials;
}
function tokenFromRef(remoteName, remote, env, globalConfig) {
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
export function maskToken(token) {
  return token.length >= 16 ? `****${token.slice(-4)}` : '****';
}
