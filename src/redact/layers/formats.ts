// Layer 1, the known formats secretlint's preset lacks: Google API keys, Stripe
// keys, JSON Web Tokens, Authorization headers, credentials in any URL scheme
// (redis://, amqp://, …). Each pattern follows its issuer's documented format.
// `password=` / `secret:` style assignments are in assignments.ts.
import type { DetectedSecret, RedactionDetector } from '../types.js';

/** A value that names another value rather than being one: `${VAR}`, `$VAR`, `%VAR%`, `{{ x }}`, `<your-token>`, `***`. */
export function isReference(value: string): boolean {
  return /^(?:\$\{?|%|\{\{|<%|<|\*{3,}|\.{3}|\[REDACTED:)/.test(value) || /(?:^|[^A-Za-z0-9])(?:xxx+|XXX+)(?:[^A-Za-z0-9]|$)/.test(value);
}

export interface Format {
  id: string;
  description: string;
  pattern: RegExp;
  /** Group holding the secret (1) when the match has context around it; 0 for the whole match. */
  group?: number;
  accept?: (secret: string) => boolean;
}

const hasDigitAndLetter = (value: string) => /[0-9]/.test(value) && /[A-Za-z]/.test(value);

const FORMATS: Format[] = [
  {
    // https://www.twilio.com/docs/sendgrid/ui/account-and-settings/api-keys: "SG.", 22 and 43 base64url
    // characters. secretlint's rule takes word characters only, and base64url has "-" too.
    id: 'sendgrid-api-key',
    description: 'SendGrid API key, dashes included (SG.….…)',
    pattern: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/dg,
  },
  {
    // https://cloud.google.com/docs/authentication/api-keys: "AIza" and 35 characters.
    id: 'google-api-key',
    description: 'Google API key (AIza…)',
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/dg,
  },
  {
    // https://docs.stripe.com/keys: secret (sk_) and restricted (rk_) keys, live and test mode.
    id: 'stripe-secret-key',
    description: 'Stripe secret or restricted key (sk_live_…, rk_test_…)',
    pattern: /(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[0-9A-Za-z]{20,247}(?![A-Za-z0-9_])/dg,
  },
  {
    // https://docs.stripe.com/webhooks: endpoint signing secrets.
    id: 'stripe-webhook-secret',
    description: 'Stripe webhook signing secret (whsec_…)',
    pattern: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9+/=]{24,}(?![A-Za-z0-9_])/dg,
  },
  {
    // https://docs.gitlab.com/ee/security/tokens/: personal, project and group access tokens, "glpat-" and 20 or more.
    id: 'gitlab-token',
    description: 'GitLab access token (glpat-…)',
    pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/dg,
  },
  {
    // https://huggingface.co/docs/hub/security-tokens: "hf_" and 34 letters.
    id: 'huggingface-token',
    description: 'Hugging Face access token (hf_…)',
    pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z]{34}(?![A-Za-z0-9_])/dg,
  },
  {
    // https://docs.digitalocean.com/reference/api/create-personal-access-token/: personal, OAuth and refresh tokens.
    id: 'digitalocean-token',
    description: 'DigitalOcean token (dop_v1_…, doo_v1_…, dor_v1_…)',
    pattern: /(?<![A-Za-z0-9_])do[por]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])/dg,
  },
  {
    // https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes: service and batch tokens.
    id: 'vault-token',
    description: 'HashiCorp Vault token (hvs.…, hvb.…)',
    pattern: /(?<![A-Za-z0-9_.-])hv[sb]\.[A-Za-z0-9_-]{24,}(?![A-Za-z0-9_-])/dg,
  },
  {
    // https://pypi.org/help/#apitoken: "pypi-" and a macaroon whose base64 starts with the domain.
    id: 'pypi-token',
    description: 'PyPI API token (pypi-AgEIcHlwaS5vcmc…)',
    pattern: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}(?![A-Za-z0-9_-])/dg,
  },
  {
    // RFC 7519: three base64url parts; header and payload are JSON objects, so both start with "eyJ".
    id: 'jwt',
    description: 'JSON Web Token (eyJ….eyJ….…)',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])/dg,
  },
  {
    // RFC 6750 bearer tokens, in a header or a curl command line.
    id: 'bearer-token',
    description: 'Bearer token of an Authorization header',
    // The token's last character is not a full stop: that one ends the sentence it stands in.
    pattern: /\b[Bb]earer\s+([A-Za-z0-9\-._~+/]{19,}[A-Za-z0-9\-_~+/]=*)/dg,
    group: 1,
    accept: hasDigitAndLetter,
  },
  {
    // RFC 7617: "Basic" and base64 of user:password.
    id: 'basic-auth-header',
    description: 'Basic credentials of an Authorization header',
    pattern: /[Aa]uthorization\\{0,3}["']?\s*[:=]\s*\\{0,3}["']?\s*Basic\s+([A-Za-z0-9+/]{8,}={0,2})/dg,
    group: 1,
  },
  {
    // curl's and httpie's `-u user:password` / `--user user:password` (RFC 7617 credentials on a command line).
    id: 'basic-auth-cli',
    description: "password of a command line's -u / --user user:password (curl, httpie)",
    // A user:group pair of the same name (`docker exec -u postgres:postgres`) is not a login.
    pattern: /(?<![^\s"'`(])(?:-u|--user)(?:[ \t]+|=)?["']?([^\s:"'@]{1,100}):(?!\1(?:[\s"']|$))([^\s"'@]{3,200})/dg,
    group: 2,
    // Nor is a user:group pair of a container's user (`-u app:staff`, `--user node:docker`): a group is a short
    // lowercase word. Nor a URL (`az login -u http://app`).
    accept: (password) =>
      !isReference(password) &&
      !/^[0-9]+$/.test(password) &&
      !/^[a-z]{1,16}$/.test(password) &&
      !password.startsWith('//') &&
      !/^(?:password|passwd|pass|secret|changeme)$/i.test(password),
  },
  {
    // The .netrc file (curl, git, ftp): `machine HOST login USER password SECRET`, on one line or several. The
    // host a host name and the login there, or prose reads as one ("the machine account password through …").
    id: 'netrc-password',
    description: 'password of a .netrc entry (machine … login … password …)',
    pattern:
      /\bmachine[ \t]+(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|localhost)(?:\s|\\[nrt])+login[ \t]+[^\s\\]+(?:\s|\\[nrt])+password[ \t]+([^\s"'\\]{4,256})/dg,
    group: 1,
    accept: (password) => !isReference(password),
  },
  {
    // An XML element holding a credential: Maven's settings.xml `<password>`, NuGet's and others' `<apiToken>`.
    id: 'xml-password',
    description: 'a password, secret or token in an XML element (<password>…</password>)',
    pattern:
      /<((?:[A-Za-z]+:)?(?:password|passwd|secret|api[_-]?key|api[_-]?token|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key))>([^<>\s]{6,256})<\/\1>/dgi,
    group: 2,
    accept: (secret) => !isReference(secret),
  },
  {
    // PHP constants: wp-config.php's `define('DB_PASSWORD', '…')` and its keys and salts.
    id: 'php-define-secret',
    description: "a PHP constant holding a password, key, token or salt (define('DB_PASSWORD', '…'))",
    pattern: /\bdefine\(\s*['"]\w*(?:PASSWORD|SECRET|KEY|TOKEN|SALT)\w*['"]\s*,\s*(['"])((?:(?!\1)[^\n\\]){6,256})\1/dg,
    group: 2,
    // A PHP string is literal: a `%` or `*` in front is a salt's own character, not a reference.
    accept: (secret) => !/^(?:\$\{?[A-Za-z_]|\{\{|<[A-Za-z]|\*+$)/.test(secret) && !/put your unique phrase here/i.test(secret),
  },
  {
    // RFC 3986 userinfo: `scheme://user:password@host`, for the schemes secretlint's URL rules do not cover.
    id: 'url-credentials',
    description: 'password in the user:password@ part of any URL',
    // Its slashes may come escaped (`postgres:\/\/app:pw@db`): JSON that escapes `/`, inside a transcript's string.
    pattern: /\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}:(?:\\{0,3}\/){2}[^\s:@/"'\\]{0,100}:([^\s@/"'\\]{3,200})@/dg,
    group: 1,
    accept: (password) => !isReference(password) && !/^(?:password|passwd|pass|secret|changeme|PASSWORD)$/i.test(password),
  },
];

export function formatDetectors(): RedactionDetector[] {
  const formats: RedactionDetector = {
    id: 'known-formats',
    source: 'built-in',
    description:
      'Formats secretlint lacks: SendGrid with dashes, Google, Stripe, GitLab, Hugging Face, DigitalOcean, Vault, PyPI, JWT, Authorization headers, curl -u, URL credentials',
    rules: FORMATS.map(({ id, description }) => ({ id, description })),
    // A JWT or an Authorization header's value runs to a few KiB at most.
    reach: 8192,
    // Escaped slashes (`:\/\/`) are the engine's to see through: it reads a line holding them unescaped.
    trigger:
      /SG\.|AIza|[sr]k_(?:live|test)_|whsec_|glpat-|hf_|do[por]_v1_|hv[sb]\.|pypi-|machine[ \t]|<(?:[A-Za-z]+:)?(?:password|passwd|secret|api|access|auth|client)|define\(|eyJ|[Bb]earer|Basic|-u[ \t=]|--user|:\/\/[^\s/]{1,300}@/,
    detect: (text) => matchFormats(text, FORMATS),
  };
  return [formats];
}

/** Every match of every format in the text, as the secret's span (its group) under the format's rule id. */
export function matchFormats(text: string, formats: ReadonlyArray<Omit<Format, 'description'>>): DetectedSecret[] {
  const found: DetectedSecret[] = [];
  for (const format of formats) {
    format.pattern.lastIndex = 0;
    for (const match of text.matchAll(format.pattern)) {
      const group = format.group ?? 0;
      const secret = match[group];
      const span = match.indices?.[group];
      if (secret === undefined || !span || (format.accept && !format.accept(secret))) continue;
      found.push({ start: span[0], end: span[1], rule: format.id });
    }
  }
  return found;
}
