// The remote URL grammar of spec §1, enforced by the client and the service alike.
// Exactly two shapes; the gateway segment is the only extra segment accepted.
import { TracerError, ExitCode } from './errors.js';

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const GATEWAY_SEGMENT = 'gw';
export const REMOTE_URL_GRAMMAR =
  '<scheme>://<host>[:port]/<org_slug>/<project_slug> or <scheme>://<host>[:port]/gw/<org_slug>/<project_slug>, ' +
  `each slug matching ${SLUG_PATTERN.source}`;

const SCHEMES = new Set(['http:', 'https:']);

export type RemoteMount = 'standalone' | 'gateway';

export interface ParsedRemoteUrl {
  /** The URL as stored: scheme, host and port as the WHATWG parser normalizes them, no trailing slash. */
  url: string;
  /** `<scheme>://<host>[:port]`, where the service listens. */
  base_url: string;
  org_slug: string;
  project_slug: string;
  mount: RemoteMount;
}

export function isSlug(value: unknown): value is string {
  return typeof value === 'string' && SLUG_PATTERN.test(value);
}

export function parseRemoteUrl(input: string): ParsedRemoteUrl {
  // Quote the input without userinfo, query or fragment: a pasted secret must not reach the terminal or a log.
  const shown = JSON.stringify(redactForMessage(input));
  const refuse = (what: string): never => {
    throw new TracerError('invalid_remote_url', `${what}; a remote URL must be ${REMOTE_URL_GRAMMAR}.`, {
      exitCode: ExitCode.usage,
    });
  };
  // The WHATWG parser would quietly repair these (drop tabs, turn \ into /, resolve dot segments),
  // so the URL stored would not be the one typed: refuse them on the raw text first.
  if (/[\s\p{Cc}\\]/u.test(input)) refuse(`${shown} contains whitespace, a control character or a backslash`);
  if (input.includes('@')) refuse(`${shown} carries credentials in the URL; bind a token with --token or --token-env instead`);
  if (/[?#]/.test(input)) refuse(`${shown} has a query or fragment`);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(input);
  if (!scheme) refuse(`${shown} is not an absolute URL`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return refuse(`${shown} is not a URL`);
  }
  if (!SCHEMES.has(url.protocol)) refuse(`${shown} uses the scheme ${url.protocol.slice(0, -1)}, not http or https`);

  const afterScheme = input.slice(scheme![0].length);
  const slash = afterScheme.indexOf('/');
  const authority = slash === -1 ? afterScheme : afterScheme.slice(0, slash);
  if (authority === '' || !url.hostname) refuse(`${shown} has no host`);
  const rawPath = slash === -1 ? '' : afterScheme.slice(slash);
  const path = rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const segments = path === '' ? [] : path.slice(1).split('/');
  if (segments.some((segment) => /^\.{1,2}$/.test(segment.replace(/%2e/gi, '.')))) refuse(`${shown} has a "." or ".." path segment`);
  let mount: RemoteMount = 'standalone';
  if (segments.length === 3 && segments[0] === GATEWAY_SEGMENT) {
    mount = 'gateway';
    segments.shift();
  }
  if (segments.length === 0) refuse(`${shown} names no org and project slug`);
  if (segments.length !== 2)
    refuse(`${shown} has ${segments.length} path segments where org_slug/project_slug (or gw/org_slug/project_slug) belong`);
  const [org, project] = segments as [string, string];
  for (const [label, slug] of [
    ['org_slug', org],
    ['project_slug', project],
  ] as const) {
    if (!isSlug(slug)) refuse(`${label} ${JSON.stringify(slug)} in ${shown} does not match the slug pattern`);
  }
  const base_url = `${url.protocol}//${url.host}`;
  const prefix = mount === 'gateway' ? `/${GATEWAY_SEGMENT}` : '';
  return { url: `${base_url}${prefix}/${org}/${project}`, base_url, org_slug: org, project_slug: project, mount };
}

/**
 * Moved to src/protocol/routes.ts (where the API lives is the protocol's
 * business); re-exported until src/sync/ and the remote resolver import it
 * from there. The import cycle this makes is harmless: neither side uses the
 * other while it loads.

/** The input minus anything that may hold a secret: userinfo (up to the last "@"), query and fragment. */
function redactForMessage(input: string): string {
  return input.replace(/[?#][\s\S]*$/, '').replace(/^([^/]*\/\/)[\s\S]*@/, '$1');
}
