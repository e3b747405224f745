// Who may talk to the viewer: whoever opened the URL it printed. The URL's
// per-launch token is traded on first visit for an HttpOnly, SameSite=Strict
// cookie (so it leaves the address bar and history at once); any request
// without it is refused. The Host header must name the address and port the
// viewer serves, so a page on another origin whose DNS name is rebound to
// 127.0.0.1 is refused too.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';

export interface Gate {
  token: string;
  cookieName: string;
  hostAllowed(host: string | undefined): boolean;
  tokenMatches(candidate: unknown): boolean;
  cookieFrom(header: string | undefined): string | undefined;
  setCookie(): string;
}

export const LOOPBACK = '127.0.0.1';

export function createGate(host: string, port: number, token = randomBytes(24).toString('base64url')): Gate {
  const allowed = new Set([...hostNames(host)].map((name) => `${name}:${port}`.toLowerCase()));
  // Cookies are not separated by port: two viewers on one machine each keep their own.
  const cookieName = `tracer_viewer_${port}`;
  const expected = Buffer.from(token);
  return {
    token,
    cookieName,
    hostAllowed: (value) => value !== undefined && allowed.has(value.toLowerCase()),
    tokenMatches(candidate) {
      if (typeof candidate !== 'string') return false;
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
    cookieFrom(header) {
      for (const part of (header ?? '').split(';')) {
        const [name, ...value] = part.trim().split('=');
        if (name === cookieName) return value.join('=');
      }
      return undefined;
    },
    setCookie: () => `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
  };
}

/** Names a browser may put in Host for this listening address. */
function hostNames(host: string): Set<string> {
  const names = new Set<string>();
  const add = (address: string) => names.add(address.includes(':') ? `[${address}]` : address);
  if (host === LOOPBACK || host === 'localhost') {
    add(LOOPBACK);
    names.add('localhost');
  } else if (host === '0.0.0.0' || host === '::') {
    names.add('localhost');
    for (const list of Object.values(networkInterfaces())) for (const info of list ?? []) add(info.address);
  } else {
    add(host.replace(/^\[|\]$/g, ''));
    if (host === '::1') names.add('localhost');
  }
  return names;
}

export function isLoopback(host: string): boolean {
  return host === LOOPBACK || host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** No inline script or style, nothing from another origin: what a transcript smuggles in cannot run or call out. */
export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
