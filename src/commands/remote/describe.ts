// What `remote show` and `remote list` report about a remote. The token is looked
// up exactly as sync would (its token_ref only, spec §5.2) but only ever shown masked.
import { parseRemoteUrl } from '../../core/remote-url.js';
import { apiRoot } from '../../protocol/routes.js';
import { maskToken, parseTokenRef } from '../../store/credentials.js';
import type { GlobalConfig } from '../../store/config-files.js';
import { chooseRemoteName, type RemoteRecord, type RemotesFile } from '../../store/remotes.js';

export interface RemoteView {
  name: string;
  url: string;
  org_slug: string;
  project_slug: string;
  base_url: string;
  /** Where `/api/v1/...` routes are sent; null when the stored URL no longer parses. */
  api_root: string | null;
  auth: RemoteRecord['auth'] | null;
  token_ref: string | null;
  /** `config.json`, `env:<VAR>` or `none`, as sync reports it. */
  token_source: string;
  token_present: boolean;
  /** Masked: enough to recognise a token, never enough to use it. */
  token: string | null;
  /** Why no token would be sent, when none would. */
  token_problem: string | null;
  default: boolean;
}

/** The remote push would use without --remote, or none when that is ambiguous. */
export function defaultRemoteName(file: RemotesFile, configuredDefault: string | undefined): string | undefined {
  try {
    const name = chooseRemoteName(file, undefined, configuredDefault);
    return file.remotes[name] ? name : undefined;
  } catch {
    return undefined;
  }
}

export function viewRemote(
  name: string,
  record: RemoteRecord,
  globalConfig: GlobalConfig,
  env: NodeJS.ProcessEnv,
  isDefault: boolean,
): RemoteView {
  let root: string | null = null;
  try {
    root = apiRoot(parseRemoteUrl(record.url));
  } catch {
    // A hand-edited URL: show what is stored; set-url reports the grammar error.
  }
  return {
    name,
    url: record.url,
    org_slug: record.org_slug,
    project_slug: record.project_slug,
    base_url: record.base_url,
    api_root: root,
    auth: record.auth ?? null,
    ...tokenView(name, record, globalConfig, env),
    default: isDefault,
  };
}

function tokenView(name: string, record: RemoteRecord, globalConfig: GlobalConfig, env: NodeJS.ProcessEnv) {
  const tokenRef = record.auth?.token_ref;
  const absent = (source: string, problem: string) => ({
    token_ref: tokenRef ?? null,
    token_source: source,
    token_present: false,
    token: null,
    token_problem: problem,
  });
  if (typeof tokenRef !== 'string')
    return absent('none', `no token is bound; bind one with tracer remote set-token ${name} --token <TOKEN>`);
  let ref;
  try {
    ref = parseTokenRef(tokenRef);
  } catch {
    return absent('invalid', `the token_ref is not valid; rebind with tracer remote set-token ${name} --token <TOKEN>`);
  }
  const found = ref.kind === 'env' ? env[ref.variable] : globalConfig.tokens?.[ref.key];
  const source = ref.kind === 'env' ? `env:${ref.variable}` : 'config.json';
  if (!found) {
    return absent(
      source,
      ref.kind === 'env'
        ? `$${ref.variable} is not set in this environment`
        : `config.json has no tokens.${ref.key}; bind one with tracer remote set-token ${name} --token <TOKEN>`,
    );
  }
  return { token_ref: tokenRef, token_source: source, token_present: true, token: maskToken(found), token_problem: null };
}
