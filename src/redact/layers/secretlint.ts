// Layer 1, the known formats, from a well-kept rule library: secretlint's
// recommended preset (AWS, GCP, GitHub, npm, Slack, OpenAI, Anthropic, Linear,
// 1Password, SendGrid, Shopify, private keys, basic auth and database connection
// strings), run through @secretlint/core. Loaded on the first text a trigger
// lets through, so text without a candidate never pays for the library.
//
// secretlint reports a finding as a range and a message id; its messages quote
// the secret, so only the id is read. Some ranges cover more than the secret (a
// whole connection string, or, for AWS secret keys, 40 characters from the start
// of `AWS_SECRET_ACCESS_KEY=`): those are narrowed to the secret itself, so the
// placeholder replaces the password of a URL and leaves its host readable.
import type { DetectedSecret, RedactionDetector, RedactionRule } from '../types.js';
import { append } from '../spans.js';
import { matchFormats, type Format } from './formats.js';

/** secretlint's message ids, as this tool's rule ids (the placeholder's kind), with what narrows their range. */
const RULES: Record<string, { id: string; description: string; narrow?: RegExp }> = {
  AWSAccessKeyID: { id: 'aws-access-key-id', description: 'AWS access key id (AKIA…, ASIA…)' },
  AWSSecretAccessKey: {
    id: 'aws-secret-access-key',
    description: 'AWS secret access key assigned to AWS_SECRET_ACCESS_KEY',
    narrow: /(?::|=>|=)\s*\\{0,3}["']?([A-Za-z0-9/+=]{40})/d,
  },
  PrivateKeyJSON: { id: 'gcp-service-account-key', description: 'GCP service account key file' },
  PrivateKeyP12: { id: 'gcp-service-account-key', description: 'GCP service account key file (p12)' },
  PackageJSON_xOauthToken: {
    id: 'github-token',
    description: 'GitHub token in an x-oauth-basic URL',
    narrow: /:\/\/(.{1,256}):x-oauth-basic@/d,
  },
  Npmrc_authToken: { id: 'npm-auth-token', description: 'npm _authToken setting', narrow: /_authToken=([^\s"'\\]+)/d },
  NPM_ACCESS_TOKEN: { id: 'npm-access-token', description: 'npm access token (npm_…)' },
  SLACK_TOKEN: { id: 'slack-token', description: 'Slack token (xoxb-, xoxp-, xapp-…)' },
  IncomingWebhook: { id: 'slack-webhook-url', description: 'Slack incoming webhook URL' },
  BasicAuth: { id: 'basic-auth-url', description: 'password of a URL with user:password@', narrow: /:\/\/[^:/\s]*:([^@/\s]+)@/d },
  OPENAI_TOKEN: { id: 'openai-api-key', description: 'OpenAI API key' },
  ANTHROPIC_API_KEY: { id: 'anthropic-api-key', description: 'Anthropic API key (sk-ant-api…)' },
  LINEAR_API_TOKEN: { id: 'linear-api-key', description: 'Linear API key (lin_api_…)' },
  PrivateKey: { id: 'private-key', description: 'PEM private key (RSA, DSA, EC, OpenSSH, PGP, PKCS#8)' },
  SENDGRID_KEY: { id: 'sendgrid-api-key', description: 'SendGrid API key (SG.…)' },
  SHOPIFY_KEY: { id: 'shopify-token', description: 'Shopify access token (shpat_…)' },
  GITHUB_TOKEN: { id: 'github-token', description: 'GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)' },
  OPS_TOKEN: { id: '1password-service-account-token', description: '1Password service account token (ops_…)' },
  MongoDBConnection: {
    id: 'mongodb-connection-string',
    description: 'password of a mongodb:// URL',
    narrow: /:\/\/[^:/\s]{1,100}:([^@/\s]{1,200})@/d,
  },
  MySQLConnection: {
    id: 'mysql-connection-string',
    description: 'password of a mysql:// URL',
    narrow: /:\/\/[^:/\s]{1,100}:([^@/\s]{1,200})@/d,
  },
  PostgreSQLConnection: {
    id: 'postgresql-connection-string',
    description: 'password of a postgres:// URL',
    narrow: /:\/\/[^:/\s]{1,100}:([^@/\s]{1,200})@/d,
  },
};

const URL_RULES = new Set(['basic-auth-url', 'mongodb-connection-string', 'mysql-connection-string', 'postgresql-connection-string']);

/**
 * What any preset rule needs to see before it can report: the formats' fixed
 * prefixes (an AWS key id whole: `A3T` alone is all over base64), `SECRET_ACCESS`
 * for AWS secret keys, and `://…@` for the URL rules, and what the complements
 * below look for. Text without any of them never loads secretlint.
 */
const TRIGGER =
  /\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b|(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)|x-oauth-basic|_authToken|npm_|xox[bpaor]-|xapp-|hooks\.slack\.com|:\/\/[^\s/]{1,300}@|T3BlbkFJ|sk-ant-[a-z]{2,10}[0-9]{2}-|lin_api_|ops_ey|PRIVATE KEY|SG\.|shp(?:pa|ca|at|ss)_|gh[pousr]_|github_pat_|wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYEXAMPLEKEY|sk-[A-Za-z0-9_-]{32}/;

/**
 * What the preset's own rules let through, found under the same rule ids. In a
 * transcript each stands where a real secret would (a demo, a test, a pasted
 * tutorial, a key cut short), and whoever reads the pushed copy cannot tell it
 * from one:
 * - AWS's documented example keys, which the preset skips on purpose;
 * - an AWS secret access key after its name and a space (`aws configure set aws_secret_access_key …`);
 * - a Slack app-level token (`xapp-1-…-…-` and 64 hex digits), which the preset cuts at 40;
 * - an `_authToken` setting: the preset reads it only in a file named `.npmrc`, and a transcript shows
 *   one anywhere (`npm config get`, a `cat ~/.npmrc`); a legacy token is a UUID, which no entropy rule
 *   takes for a secret (`npm_` tokens are the npm-access-token rule's);
 * - an AWS secret access key that ends in `/`, `+` or `=` before a space or a full stop, which the
 *   preset's closing `\b` misses (one key in twenty-odd);
 * - a PEM private key whose body the preset does not take for a real one (under
 *   100 base64 characters, or not starting with an ASN.1 or OpenSSH header):
 *   its body, whatever it holds, the BEGIN and END lines kept;
 * - OpenAI keys without the `T3BlbkFJ` infix the preset looks for (the `sk-` and
 *   48 characters of OpenAI's older documentation, or `sk-proj-` keys);
 * - Anthropic keys of another length or kind than the preset's exact
 *   `sk-ant-api03-` + 93 + `AA` (admin keys, `sk-ant-admin01-…`, say);
 * - GitHub tokens right after a letter the preset's `(?<!\p{L})` refuses but no
 *   word holds: the `n` of a literal `\n` (JSON inside a JSON string, decoded
 *   once: `"…\nghp_…"`), or a letter beyond ASCII (a stray byte read as Latin-1).
 */
const COMPLEMENTS: ReadonlyArray<Omit<Format, 'description'>> = [
  { id: 'aws-access-key-id', pattern: /AKIAIOSFODNN7EXAMPLE/dg },
  { id: 'aws-secret-access-key', pattern: /wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYEXAMPLEKEY/dg },
  {
    id: 'aws-secret-access-key',
    pattern:
      /(?:AWS|aws|Aws)?_?(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)["']?(?:\s*(?::|=>|=)\s*|[ \t]+)["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dg,
    group: 1,
  },
  {
    id: 'private-key',
    pattern: /-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----\s*([\s\S]{1,12000}?)\s*-----END[ A-Z0-9]{0,30}PRIVATE KEY/dg,
    group: 1,
    accept: (body) => /[A-Za-z0-9+/]{16}/.test(body),
  },
  // A Slack app-level token's last part is 64 hex digits, past the preset's 40: it kept them in clear.
  { id: 'slack-token', pattern: /(?<![A-Za-z0-9_-])xapp-\d+-[A-Z0-9]+-\d+-[a-f0-9]{32,}(?![A-Za-z0-9_-])/dg },
  {
    id: 'npm-auth-token',
    pattern: /_authToken["']?[ \t]*[:=][ \t]*["']?((?!npm_)[A-Za-z0-9._~+/=-]{16,})/dg,
    group: 1,
    // Code's `this._authToken = options.authTokenValue`, `_authToken = process.env.NPM_TOKEN`: a dotted name.
    accept: (token) => !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(token),
  },
  { id: 'anthropic-api-key', pattern: /(?<![A-Za-z0-9_-])sk-ant-[a-z]{2,10}[0-9]{2}-[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/dg },
  {
    id: 'github-token',
    pattern: /(?<=\\[nrt]|[^\p{ASCII}])(?:gh[pousr]_[A-Za-z0-9_]{36}|github_pat_[A-Za-z0-9_]{82})(?![A-Za-z0-9_])/dgu,
  },
  {
    id: 'openai-api-key',
    pattern: /(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/dg,
    accept: (key) => /[0-9]/.test(key) && /[A-Za-z]/.test(key.slice(3)),
  },
];

/** Rules of the preset left out: filter-comments would let a `secretlint-disable` comment in a transcript switch redaction off. */
const LEFT_OUT = new Set(['@secretlint/secretlint-rule-filter-comments']);

type LintSource = typeof import('@secretlint/core').lintSource;
type Config = Parameters<LintSource>[0]['options']['config'];

let loaded: Promise<{ lintSource: LintSource; config: Config }> | undefined;

function load() {
  loaded ??= Promise.all([
    import('@secretlint/core'),
    import('@secretlint/secretlint-rule-preset-recommend'),
    import('@secretlint/profiler'),
  ]).then(([core, preset, profiler]) => {
    // @secretlint/core marks every rule's start and end with its profiler, which
    // keeps every mark for good and looks each new one up among all of them: a
    // gate that scans for weeks would grow without end, and an 8 MB transcript
    // spent a fifth of its redaction there. Nothing here reads the profile.
    profiler.secretLintProfiler.mark = () => undefined;
    return {
      lintSource: core.lintSource,
      config: {
        rules: preset.rules
          .filter((rule) => !LEFT_OUT.has(rule.meta.id))
          .map((rule) => ({
            id: rule.meta.id,
            rule,
            // Access key ids count as secrets here (transcripts pair them with their keys); account ids do not.
            ...(rule.meta.id === '@secretlint/secretlint-rule-aws'
              ? { options: { enableIDScanRule: true }, allowMessageIds: ['AWSAccountID'] }
              : {}),
          })),
      } as Config,
    };
  });
  return loaded;
}

export function secretlintDetector(): RedactionDetector {
  // One entry per rule id, saying every kind of secret it names (github-token: the ghp_… tokens and the x-oauth-basic URLs).
  const rules: RedactionRule[] = [];
  for (const { id, description } of Object.values(RULES)) {
    const known = rules.find((rule) => rule.id === id);
    if (known) known.description = `${known.description}; ${description}`;
    else rules.push({ id, description });
  }
  return {
    id: 'secretlint-recommend',
    source: 'built-in (@secretlint/secretlint-rule-preset-recommend)',
    description: "secretlint's recommended preset",
    rules,
    trigger: TRIGGER,
    // A PEM key's body is at most 10,000 characters (the preset's own limit), its markers aside.
    reach: 12_000,
    async detect(text) {
      const { lintSource, config } = await load();
      const result = await lintSource({
        source: { content: text, filePath: 'transcript.txt', ext: '.txt', contentType: 'text' },
        options: { config, noPhysicFilePath: true, maskSecrets: true },
      });
      const found: DetectedSecret[] = [];
      for (const message of result.messages) {
        const rule = RULES[message.messageId];
        const [start, end] = message.range;
        if (!rule) {
          // A message id this version does not know yet (a newer preset): redact its range under the rule's name.
          found.push({ start, end, rule: message.ruleId.replace(/^@secretlint\/secretlint-rule-/, '') });
          continue;
        }
        found.push(narrowed(text, start, end, rule.id, rule.narrow));
      }
      append(found, matchFormats(text, COMPLEMENTS));
      // Where a URL rule and a token rule find the same secret (a token as a URL's password), the token names it.
      return found.sort((a, b) => Number(URL_RULES.has(a.rule!)) - Number(URL_RULES.has(b.rule!)));
    },
  };
}

/** The secret inside a range that covers more (a URL's password), or the range itself when the narrowing does not apply. */
function narrowed(text: string, start: number, end: number, rule: string, narrow: RegExp | undefined): DetectedSecret {
  if (!narrow) return { start, end, rule };
  // The AWS rule's range starts at the variable name and may stop short of the value: look a little past it.
  const window = text.slice(start, Math.min(text.length, Math.max(end, start + 300)));
  const match = narrow.exec(window);
  const group = match?.indices?.[1];
  return group ? { start: start + group[0], end: start + group[1], rule } : { start, end, rule };
}
