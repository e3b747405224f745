// The redaction corpus: secrets in the formats their issuers document, with
// values this file generates (seeded, so every run sees the same bytes; never a
// real credential), and the benign strings a transcript is full of that look
// random and are not secrets. test/redact/corpus.test.ts holds redaction to it;
// bench/workloads/redaction.ts prints recall and false positives per rule for
// BENCHMARKS.md.
import { createHash } from 'node:crypto';
// The benchmarks' seeded generator (mulberry32): every run makes the same values.
import { seededRandom } from '../../bench/dataset.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = `${ALNUM}+/`;
const BASE64URL = `${ALNUM}-_`;
const HEX = '0123456789abcdef';

export class Values {
  readonly #random: () => number;
  constructor(seed: number) {
    this.#random = seededRandom(seed);
  }
  pick(alphabet: string, length: number): string {
    let out = '';
    for (let index = 0; index < length; index += 1) out += alphabet[Math.floor(this.#random() * alphabet.length)];
    // A value without a digit and a letter is possible and would look unlike a key: retry those (keys have both).
    if (length >= 8 && /[A-Za-z]/.test(alphabet) && /[0-9]/.test(alphabet) && !(/[0-9]/.test(out) && /[A-Za-z]/.test(out)))
      return this.pick(alphabet, length);
    return out;
  }
  bytes(length: number): Buffer {
    return Buffer.from(Array.from({ length }, () => Math.floor(this.#random() * 256)));
  }
  int(max: number): number {
    return Math.floor(this.#random() * max);
  }
  uuid(): string {
    const hex = this.pick(HEX, 32);
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  }
  sha(bits: 1 | 256): string {
    return createHash(bits === 1 ? 'sha1' : 'sha256')
      .update(this.bytes(16))
      .digest('hex');
  }
}

/** A secret of one rule, and the text it appears in (the secret is a substring of the text). */
export interface Positive {
  rule: string;
  secret: string;
  text: string;
}

/** One generator per rule: a text holding a fresh secret, in the format the issuer documents. */
const FORMATS: Record<string, (v: Values) => { secret: string; text: string }> = {
  // https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_access-keys.html
  'aws-access-key-id': (v) => {
    const secret = `AKIA${v.pick(UPPER32, 16)}`;
    return { secret, text: `aws_access_key_id = ${secret}` };
  },
  'aws-secret-access-key': (v) => {
    const secret = v.pick(BASE64, 40);
    const forms = [`export AWS_SECRET_ACCESS_KEY=${secret}`, `aws configure set aws_secret_access_key ${secret}`];
    return { secret, text: forms[v.int(forms.length)]! };
  },
  // https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats
  'github-token': (v) => {
    const secret = [
      `ghp_${v.pick(ALNUM, 36)}`,
      `gho_${v.pick(ALNUM, 36)}`,
      `ghs_${v.pick(ALNUM, 36)}`,
      `github_pat_${v.pick(`${ALNUM}_`, 82)}`,
    ][v.int(4)]!;
    return { secret, text: `git remote set-url origin https://x-access-token:${secret}@github.com/acme/web.git` };
  },
  // https://docs.npmjs.com/about-access-tokens
  'npm-access-token': (v) => {
    const secret = `npm_${v.pick(ALNUM, 36)}`;
    return { secret, text: `//registry.npmjs.org/:_authToken=${secret}` };
  },
  // https://docs.npmjs.com/cli/v10/configuring-npm/npmrc#auth-related-configuration: a legacy token is a UUID.
  'npm-auth-token': (v) => {
    const secret = v.uuid();
    return { secret, text: `//registry.npmjs.org/:_authToken=${secret}` };
  },
  // https://api.slack.com/authentication/token-types
  'slack-token': (v) => {
    const secret = [
      `xoxb-${v.pick('0123456789', 12)}-${v.pick('0123456789', 13)}-${v.pick(ALNUM, 24)}`,
      `xapp-1-A${v.pick('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', 10)}-${v.pick('0123456789', 13)}-${v.pick('0123456789abcdef', 64)}`,
    ][v.int(2)]!;
    return { secret, text: `SLACK_BOT_TOKEN=${secret}` };
  },
  'slack-webhook-url': (v) => {
    const secret = `https://hooks.slack.com/services/T${v.pick(UPPER32, 8)}/B${v.pick(UPPER32, 10)}/${v.pick(ALNUM, 24)}`;
    return { secret, text: `curl -X POST -d '{"text":"deployed"}' ${secret}` };
  },
  // https://platform.openai.com/docs/api-reference/authentication (project keys: sk-proj-…T3BlbkFJ…)
  'openai-api-key': (v) => {
    const secret = `sk-proj-${v.pick(BASE64URL, 74)}T3BlbkFJ${v.pick(BASE64URL, 74)}`;
    return { secret, text: `OPENAI_API_KEY=${secret}` };
  },
  // https://docs.anthropic.com/en/api/getting-started: sk-ant-api03-…AA
  'anthropic-api-key': (v) => {
    const secret = `sk-ant-api03-${v.pick(BASE64URL, 93)}AA`;
    return { secret, text: `client = Anthropic(api_key="${secret}")` };
  },
  // https://developers.linear.app/docs/graphql/working-with-the-graphql-api#personal-api-keys
  'linear-api-key': (v) => {
    const secret = `lin_api_${v.pick(ALNUM, 40)}`;
    return { secret, text: `curl -H "Authorization: ${secret}" https://api.linear.app/graphql` };
  },
  // https://developer.1password.com/docs/service-accounts/: ops_ and a base64 JSON object
  '1password-service-account-token': (v) => {
    let json = JSON.stringify({
      signInAddress: 'my.1password.com',
      userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000, salt: v.pick(BASE64URL, 22) },
      email: `${v.pick(HEX, 12)}@1passwordserviceaccounts.com`,
      srpX: v.pick(HEX, 64),
      muk: { alg: 'A256GCM', ext: true, k: v.pick(BASE64URL, 43), kty: 'oct' },
      secretKey: `A3-${v.pick(UPPER32, 6)}`,
      deviceUuid: v.pick(HEX, 26),
    });
    while (json.length % 3 !== 1) json = json.replace('"signInAddress"', ' "signInAddress"');
    const secret = `ops_${Buffer.from(json).toString('base64')}`;
    return { secret, text: `export OP_SERVICE_ACCOUNT_TOKEN=${secret}` };
  },
  // RFC 7468 PEM: "-----BEGIN RSA PRIVATE KEY-----", base64 of a DER SEQUENCE ("MII…") in 64-column lines
  'private-key': (v) => {
    const body = `MIIEpAIBAAKCAQEA${v.pick(BASE64, 1560)}`;
    const lines = body.match(/.{1,64}/g)!.join('\n');
    const secret = `-----BEGIN RSA PRIVATE KEY-----\n${lines}\n-----END RSA PRIVATE KEY-----`;
    return { secret, text: `cat ~/.ssh/deploy_key\n${secret}\n` };
  },
  // https://docs.sendgrid.com/ui/account-and-settings/api-keys: SG.<22>.<43>
  'sendgrid-api-key': (v) => {
    const secret = `SG.${v.pick(BASE64URL, 22)}.${v.pick(BASE64URL, 43)}`;
    return { secret, text: `SENDGRID_API_KEY='${secret}'` };
  },
  // https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens: shpat_ + 32 hex
  'shopify-token': (v) => {
    const secret = `shpat_${v.pick(HEX, 32)}`;
    return { secret, text: `X-Shopify-Access-Token: ${secret}` };
  },
  // RFC 3986 userinfo, https
  'basic-auth-url': (v) => {
    const secret = v.pick(ALNUM, 14);
    return { secret, text: `pip install --index-url https://deploy:${secret}@pypi.internal.example.com/simple acme` };
  },
  // https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS
  'postgresql-connection-string': (v) => {
    const secret = v.pick(ALNUM, 16);
    return { secret, text: `DATABASE_URL=postgres://app_user:${secret}@db.internal:5432/app_production` };
  },
  'mysql-connection-string': (v) => {
    const secret = v.pick(ALNUM, 16);
    return { secret, text: `mysql://root:${secret}@10.0.3.7:3306/orders` };
  },
  // https://www.mongodb.com/docs/manual/reference/connection-string/
  'mongodb-connection-string': (v) => {
    const secret = v.pick(ALNUM, 16);
    return { secret, text: `MONGO_URL="mongodb+srv://reporting:${secret}@cluster0.x7k2p.mongodb.net/analytics?retryWrites=true"` };
  },
  // https://cloud.google.com/docs/authentication/api-keys: AIza + 35
  'google-api-key': (v) => {
    const secret = `AIza${v.pick(`${ALNUM}-_`, 35)}`;
    return { secret, text: `const maps = new Loader({ apiKey: "${secret}" });` };
  },
  // https://docs.stripe.com/keys
  'stripe-secret-key': (v) => {
    const secret = `${['sk_live_', 'sk_test_', 'rk_live_'][v.int(3)]}${v.pick(ALNUM, 24 + v.int(75))}`;
    return { secret, text: `Stripe.api_key = '${secret}'` };
  },
  // https://everything.curl.dev/usingcurl/netrc
  'netrc-password': (v) => {
    const secret = v.pick(ALNUM, 16);
    return {
      secret,
      text: [`machine github.com login alice password ${secret}`, `machine api.example.com\n  login deploy\n  password ${secret}`][
        v.int(2)
      ]!,
    };
  },
  // https://maven.apache.org/settings.html#servers
  'xml-password': (v) => {
    const secret = v.pick(ALNUM, 16);
    return { secret, text: `<server>\n  <id>releases</id>\n  <username>deploy</username>\n  <password>${secret}</password>\n</server>` };
  },
  // https://developer.wordpress.org/advanced-administration/wordpress/wp-config/
  'php-define-secret': (v) => {
    const secret = v.pick(`${ALNUM}!#%*`, 16);
    return { secret, text: `define( 'DB_PASSWORD', '${secret}' );` };
  },
  // https://docs.gitlab.com/ee/security/tokens/
  'gitlab-token': (v) => {
    const secret = `glpat-${v.pick(`${ALNUM}_-`, 20)}`;
    return { secret, text: `echo ${secret} | glab auth login --stdin` };
  },
  // https://huggingface.co/docs/hub/security-tokens
  'huggingface-token': (v) => {
    const secret = `hf_${v.pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', 34)}`;
    return { secret, text: `huggingface-cli login --token ${secret}` };
  },
  // https://docs.digitalocean.com/reference/api/create-personal-access-token/
  'digitalocean-token': (v) => {
    const secret = `dop_v1_${v.pick('0123456789abcdef', 64)}`;
    return { secret, text: `doctl auth init -t ${secret}` };
  },
  // https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes
  'vault-token': (v) => {
    const secret = `hvs.${v.pick(ALNUM, 24 + v.int(70))}`;
    return { secret, text: `vault login ${secret}` };
  },
  // https://pypi.org/help/#apitoken
  'pypi-token': (v) => {
    const secret = `pypi-AgEIcHlwaS5vcmc${v.pick(`${ALNUM}_-`, 60 + v.int(100))}`;
    return { secret, text: `twine upload -u __token__ -p ${secret} dist/*` };
  },
  'stripe-webhook-secret': (v) => {
    const secret = `whsec_${v.pick(ALNUM, 32)}`;
    return { secret, text: `STRIPE_WEBHOOK_SECRET=${secret}` };
  },
  // RFC 7519
  jwt: (v) => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const secret = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: v.uuid(), iat: 1716400000 + v.int(1e6), role: 'admin' })}.${v.pick(BASE64URL, 43)}`;
    return { secret, text: `document.cookie = "session=${secret}; path=/"` };
  },
  // RFC 6750
  'bearer-token': (v) => {
    const secret = v.pick(`${ALNUM}-._~`, 48);
    return { secret, text: `curl -H "Authorization: Bearer ${secret}" https://api.internal.example.com/v1/users` };
  },
  // RFC 7617
  'basic-auth-header': (v) => {
    const secret = Buffer.from(`ci-bot:${v.pick(ALNUM, 18)}`).toString('base64');
    return { secret, text: `Authorization: Basic ${secret}` };
  },
  // curl(1) --user
  'basic-auth-cli': (v) => {
    const secret = `${v.pick(ALNUM, 14)}x`;
    return { secret, text: `curl -u deploy:${secret} https://artifacts.internal.example.com/upload` };
  },
  'url-credentials': (v) => {
    const secret = v.pick(ALNUM, 20);
    return { secret, text: `REDIS_URL=redis://:${secret}@cache.internal:6379/0` };
  },
  'password-assignment': (v) => {
    const secret = `${v.pick(ALNUM, 10)}!${v.int(90) + 10}`;
    const forms = [
      `DB_PASSWORD=${secret}`,
      `password: "${secret}"`,
      `  "passwd": "${secret}",`,
      `mysql --password ${secret} orders`,
      `client_secret = '${secret}'`,
      `env:\n  - name: DB_PASSWORD\n    value: "${secret}"`,
    ];
    return { secret, text: forms[v.int(forms.length)]! };
  },
  'high-entropy-assignment': (v) => {
    const form = v.int(9);
    // A cloud session token is long: `aws sts get-session-token` prints 400 to over 1,000 characters. Some
    // issuers' tokens are 32 hex digits (Twilio) or a UUID (Heroku).
    const secret =
      form === 7
        ? v.pick('0123456789abcdef', 32)
        : form === 8
          ? v.uuid()
          : form >= 5
            ? v.pick(ALNUM, 400 + v.int(700))
            : v.pick(ALNUM, 32 + v.int(16));
    const forms = [
      `API_KEY=${secret}`,
      `"api_key": "${secret}"`,
      `auth_token = "${secret}"`,
      `SERVICE_TOKEN: ${secret}`,
      `signingKey: '${secret}'`,
      `{\n  "Credentials": {\n    "SessionToken": "${secret}",\n    "Expiration": "2024-05-01T13:00:00Z"\n  }\n}`,
      `aws_session_token = ${secret}`,
      `TWILIO_AUTH_TOKEN=${secret}`,
      `heroku config:set HEROKU_API_KEY=${secret}`,
    ];
    return { secret, text: forms[form]! };
  },
};

const PII: Record<string, (v: Values) => { secret: string; text: string }> = {
  'email-address': (v) => {
    const secret = `${v.pick('abcdefghijklmnopqrstuvwxyz', 6)}.${v.pick('abcdefghijklmnopqrstuvwxyz', 7)}@${['example.com', 'corp.example.org', 'mail.example.net'][v.int(3)]}`;
    return { secret, text: `Signed-off-by: Jane Roe <${secret}>` };
  },
  'phone-number': (v) => {
    const secret = [`+1 415 555 ${v.pick('0123456789', 4)}`, `(415) 555-${v.pick('0123456789', 4)}`, `+4915${v.pick('0123456789', 9)}`][
      v.int(3)
    ]!;
    return { secret, text: `Call me on ${secret} after the deploy.` };
  },
};

/** Every built-in rule; the secret in plain text, in a transcript line, and inside a JSON file a tool read. */
export function positives(options: { perRule?: number; seed?: number; pii?: boolean } = {}): Positive[] {
  const values = new Values(options.seed ?? 29);
  const out: Positive[] = [];
  const formats = options.pii ? PII : FORMATS;
  for (const [rule, make] of Object.entries(formats)) {
    for (let n = 0; n < (options.perRule ?? 4); n += 1) {
      const { secret, text } = make(values);
      out.push({ rule, secret, text: `${text}\n` });
      out.push({ rule, secret, text: `${transcriptLine(values, text)}\n` });
      if (n % 2 === 0)
        out.push({ rule, secret, text: `${transcriptLine(values, JSON.stringify({ note: 'config', value: text }, null, 2))}\n` });
    }
  }
  return out;
}

/** A Claude Code transcript line holding `text` as a tool result, as the agent writes it (one JSON object a line). */
export function transcriptLine(values: Values, text: string): string {
  return JSON.stringify({
    parentUuid: values.uuid(),
    isSidechain: false,
    userType: 'external',
    cwd: '/home/user/projects/web',
    sessionId: values.uuid(),
    version: '2.0.42',
    gitBranch: 'main',
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: `toolu_${values.pick(ALNUM, 24)}`, type: 'tool_result', content: text }] },
    uuid: values.uuid(),
    timestamp: '2025-11-17T09:26:23.124Z',
  });
}

/** Strings a transcript is full of that are not secrets; redaction must leave each one byte for byte. */
export function benign(options: { seed?: number } = {}): string[] {
  const v = new Values(options.seed ?? 92);
  const sha1 = () => v.sha(1);
  const sha256 = () => v.sha(256);
  const lines = [
    `commit ${sha1()}`,
    `HEAD is now at ${sha1().slice(0, 7)} fix: handle the token refresh`,
    `Merge: ${sha1().slice(0, 9)} ${sha1().slice(0, 9)}`,
    `image: ghcr.io/acme/web@sha256:${sha256()}`,
    `${sha256()}  dist/tracer-0.1.0.tgz`,
    `"sha": "${sha1()}",`,
    `"content_sha256": "${sha256()}"`,
    `"integrity": "sha512-${v.bytes(64).toString('base64')}"`,
    `"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz", "integrity": "sha1-${v.bytes(20).toString('base64')}"`,
    `github.com/stretchr/testify v1.9.0 h1:${v.bytes(32).toString('base64')}`,
    `request id ${v.uuid()}`,
    `"sessionId": "${v.uuid()}", "parentUuid": "${v.uuid()}"`,
    `"tool_use_id": "toolu_${v.pick(ALNUM, 24)}"`,
    `"requestId": "req_011CV${v.pick(ALNUM, 19)}"`,
    `"id": "msg_01${v.pick(ALNUM, 22)}"`,
    `{"type":"thinking","thinking":"Let me check the tests.","signature":"${v.bytes(180).toString('base64')}"}`,
    `const fixture = "${v.bytes(48).toString('base64')}";`,
    `expect(decode("${v.bytes(30).toString('base64')}")).toEqual(bytes);`,
    `data:image/png;base64,${v.bytes(120).toString('base64')}`,
    'const apiKey = process.env.API_KEY;',
    'apiKey: process.env.STRIPE_SECRET_KEY,',
    'secret_key = os.environ["SECRET_KEY"]',
    'token = ENV["GITHUB_TOKEN"]',
    'password: <your-password>',
    'API_KEY=<your-api-key>',
    'token: "YOUR_TOKEN_HERE"',
    'password: ${DB_PASSWORD}',
    'export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}',
    'curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com',
    'Authorization: Bearer ${TOKEN}',
    'password = "********"',
    'DB_PASSWORD=changeme',
    'password: string;',
    'function login(username: string, password: string) {',
    'const token = await getToken(session);',
    'if (password !== confirmPassword) throw new Error("mismatch");',
    'secretName: "db-credentials"',
    '"input_tokens": 1234, "output_tokens": 567, "cache_creation_input_tokens": 8910',
    'max_tokens: 4096',
    '<li key={item.id}>{item.name}</li>',
    'const cacheKey = `${user}:${hash(query)}`;',
    'password = config["db"]["password"]',
    'password = request.form["password"]',
    'secret = params[:secret]',
    'session_token = base64.b64encode(os.urandom(32))',
    'api_key = generate_key(length=32)',
    'secret = crypto.randomBytes(32).toString("hex")',
    "const apiKey = Buffer.from(rawKey).toString('base64')",
    'private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)',
    'token := os.Getenv("TOKEN")',
    'password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256',
    'db_password: !secret db_password',
    '<password>${env.MAVEN_PASSWORD}</password>',
    "define( 'AUTH_KEY', 'put your unique phrase here' );",
    "define( 'WP_DEBUG', false );",
    'The build machine asks for a password manager entry before login.',
    // A second audit: code, types, messages, names of secrets, endpoints, pagination tokens, placeholders, public keys.
    'token_bytes = base64.urlsafe_b64decode(token + "==")',
    'secret_key = base64.b64decode(encoded_key + "=" * (-len(encoded_key) % 4))',
    'const apiKey2 = buildApiKey(orgId + "-" + suffix);',
    'const token = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16));',
    'const password = faker.internet.password({ length: 20, memorable: false });',
    'token3 := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: accessToken})',
    'let signing_key = SigningKey::from_bytes(&seed);',
    'let token = UserDefaults.standard.string(forKey: "authToken")',
    "'password' => Hash::make($request->password),",
    'secret_string = jsonencode({ username = "app", password = random_password.db.result })',
    'n={secret:i&&a.b64(s),secretKey:t.k?t.k:e.s}',
    'interface KeyPair { publicKey: Uint8Array; secretKey: Uint8Array }',
    'let secret: Uint8Array | null = null;',
    'pub password: Secret<String>,',
    'secret: Vec<u8>,',
    'password: Option<Secret<String>>,',
    'secret: Box<dyn SecretStore + Send + Sync>,',
    'pub secret: SecretBox<[u8; 32]>,',
    'password: Arc<Mutex<String>>,',
    'token_tx: mpsc::Sender<Token>,',
    '"forgot_password": "Forgot your password?",',
    '"password_help": "Use at least 12 characters.",',
    '"password_error": "The password is too short.",',
    '"passwordMessage": "Choose a strong password please",',
    '"password_requirements": "At least 12 characters, one digit",',
    '"reset_password_subject": "Reset your password now",',
    '"secret_question": "What was the name of your first school?",',
    '"password_changed_at": "2024-03-12T14:03:22Z",',
    '"PasswordLastUsed": "2024-03-12T14:03:22Z",',
    '"secret_created": "2024-03-12T14:03:22Z",',
    'password_reset_url: "https://example.com/account/reset"',
    'forgotPasswordUrl = "https://example.com/forgot"',
    'password_hash_algorithm = "argon2id"',
    "SECRET_HEADER = 'x-webhook-signature'",
    'helm install app ./chart --set secret.name=app-secrets --set auth.existingSecret=redis-auth',
    'secretProviderClass: azure-kv-provider',
    'secret_key_ref = "projects/acme/secrets/api-key-2024/versions/latest"',
    'secret_provider: aws-secrets-manager-v2',
    '"secretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf"',
    'password: op://Private/db/password',
    '<label htmlFor="password">Password:</label>',
    '"authorization_endpoint": "https://accounts.google.com/o/oauth2/v2/auth",',
    '"auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",',
    '"NextToken": "eyJ2IjoxLCJvIjoiQUFBQUFBQUFBQUE9In0xZ2dhYmNkZWY=",',
    '"NextContinuationToken": "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=",',
    '"nextPageToken": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA",',
    'page_token=CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA',
    '"pagination_token": "7140dibdnow9c7btw423x6yg0d3wr9m7",',
    'DB_PASSWORD=your-password-here',
    'SECRET_KEY=change-me-to-a-long-random-string',
    'JWT_SECRET=replace_with_a_random_secret',
    'SESSION_SECRET=<generate with: openssl rand -hex 32>',
    'STRIPE_SECRET_KEY=sk_test_...',
    'STRIPE_WEBHOOK_SECRET=whsec_...',
    'SECRET_KEY=insert-your-secret-key-here',
    'PASSWORD=put-your-password-here',
    'NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51HxYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789',
    '"publishableKey": "pk_test_51HxYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789"',
    'NEXT_PUBLIC_POSTHOG_KEY=phc_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdef',
    'RECAPTCHA_SITE_KEY=6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI',
    'docker run --rm -u app:staff node:20 npm test',
    'docker run --user node:docker -it node:20 bash',
    'podman run --user postgres:root postgres:16',
    `publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${v.pick(BASE64, 43)}"`,
    'https://github.com/acme/web/pull/42',
    'git@github.com:acme/web.git',
    'http://localhost:8080/api/v1/health',
    'https://deploy@git.example.com/acme/web.git',
    'postgres://localhost/app_test',
    'postgres://app_user@db.internal:5432/app_production',
    'Remember to rotate the token after the incident review.',
    'The password must be at least 12 characters long.',
    'Keyboard shortcuts: press the key combination Ctrl+K.',
    'git push -u origin main && python -u manage.py migrate',
    'env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: TOKEN_URL\n    value: "https://auth.example.com/oauth/token"',
    '  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db-credentials, key: password}',
    'docker run --rm -u 1000:1000 -v "$PWD:/src" node:20 npm test',
    'docker exec -u postgres:postgres db psql -c "select 1"',
    'curl -u "$DEPLOY_USER:$DEPLOY_TOKEN" https://artifacts.internal.example.com/upload',
    `passwordHash: "$2b$12$${v.pick(`${ALNUM}./`, 53)}"`,
    `etag: W/"${sha1()}"`,
    `"version": "4.17.21", "license": "MIT"`,
    'npm ERR! code E401 Unable to authenticate, need: Basic realm="GitHub Package Registry"',
    `eyJhbGciOiJIUzI1NiJ9 is only a JWT header`,
    `uuid=${v.uuid()} trace_id=${v.pick(HEX, 32)} span_id=${v.pick(HEX, 16)}`,
    `version: 3\nservices:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password`,
    `- run: echo "::add-mask::$TOKEN"`,
    `10.0.3.7:5432, 2024-05-01T12:00:00Z, v1.2.3-rc.4, 0x${v.pick(HEX, 16)}`,
  ];
  // Each also as Claude Code writes it: inside a transcript line.
  return [...lines, ...lines.map((line) => transcriptLine(v, line))];
}
