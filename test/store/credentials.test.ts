import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode } from '../../src/core/errors.js';
import type { GlobalConfig } from '../../src/store/config-files.js';
import {
  formatTokenRef,
  globalTokenKey,
  maskToken,
  parseTokenRef,
  resolveCredentials,
  type CredentialPurpose,
} from '../../src/store/credentials.js';
import type { RemoteRecord } from '../../src/store/remotes.js';
import { expectCode } from '../helpers/errors.js';

const PROJECT = '0b6e2c1e-9f7a-4a53-8d0e-0c7c2f0c9d11';
const KEY = `${PROJECT}::origin`;
const PURPOSES: CredentialPurpose[] = ['sync', 'doctor', 'remote-add', 'project-create'];
const NOT_ADMIN: CredentialPurpose[] = ['sync', 'doctor', 'remote-add'];

const remote = (auth?: RemoteRecord['auth']): RemoteRecord => ({
  url: 'https://h.example/acme/web',
  org_slug: 'acme',
  project_slug: 'web',
  base_url: 'https://h.example',
  ...(auth ? { auth } : {}),
});

/** Every environment variable a careless resolver might reach for. */
const NOISY_ENV = {
  TRACER_TOKEN: 'env-tracer-token',
  TRACER_ADMIN_SECRET: 'env-admin-secret',
  TRACER_ORIGIN_TOKEN: 'env-origin-token',
  ORIGIN_TOKEN: 'env-origin-token-2',
  [KEY]: 'env-named-like-the-key',
  TOKEN: 'env-token',
};

test('rule 1: a stored token_ref wins for every purpose; no environment variable overrides it', () => {
  const globalConfig: GlobalConfig = { tokens: { [KEY]: 'stored-secret-0001' }, auth_token: 'legacy-slot' };
  for (const purpose of PURPOSES) {
    const credentials = resolveCredentials({
      remoteName: 'origin',
      remote: remote({ token_ref: `global:${KEY}` }),
      purpose,
      env: NOISY_ENV,
      globalConfig,
    });
    assert.is(credentials.token, 'stored-secret-0001', purpose);
    assert.is(credentials.source, 'config.json');
  }
});

test('rule 1: an env: token_ref reads exactly its variable, not TRACER_TOKEN or a look-alike', () => {
  const env = { ...NOISY_ENV, CI_TRACER_TOKEN: 'the-bound-variable' };
  for (const purpose of PURPOSES) {
    const credentials = resolveCredentials({
      remoteName: 'origin',
      remote: remote({ token_ref: 'env:CI_TRACER_TOKEN' }),
      purpose,
      env,
      globalConfig: { tokens: { [KEY]: 'stored' } },
    });
    assert.is(credentials.token, 'the-bound-variable', purpose);
    assert.is(credentials.source, 'env:CI_TRACER_TOKEN');
  }
});

test('rule 2: TRACER_TOKEN is never returned for sync (nor for any purpose) when the remote binds no token', () => {
  for (const purpose of PURPOSES) {
    const credentials = resolveCredentials({
      remoteName: 'origin',
      remote: remote(),
      purpose,
      env: { TRACER_TOKEN: 'env-tracer-token' },
      globalConfig: {},
    });
    assert.is(credentials.token, undefined, purpose);
    assert.is(credentials.source, 'none');
    assert.not.ok(JSON.stringify(credentials).includes('env-tracer-token'), purpose);
  }
});

test('rule 3: TRACER_ADMIN_SECRET only for project creation, and never as the token', () => {
  for (const purpose of NOT_ADMIN) {
    const credentials = resolveCredentials({ remoteName: 'origin', remote: remote(), purpose, env: NOISY_ENV, globalConfig: {} });
    assert.is(credentials.adminSecret, undefined, purpose);
    assert.not.ok(JSON.stringify(credentials).includes('env-admin-secret'), purpose);
  }
  const create = resolveCredentials({
    remoteName: 'origin',
    remote: remote({ token_ref: `global:${KEY}` }),
    purpose: 'project-create',
    env: NOISY_ENV,
    globalConfig: { tokens: { [KEY]: 'stored' } },
  });
  assert.is(create.adminSecret, 'env-admin-secret');
  assert.is(create.token, 'stored', 'the admin secret does not replace the remote token');
  const unset = resolveCredentials({ remoteName: 'origin', remote: remote(), purpose: 'project-create', env: {}, globalConfig: {} });
  assert.is(unset.adminSecret, undefined);
});

test('rule 4: the legacy auth_token slot is never returned', () => {
  const globalConfig: GlobalConfig = { auth_token: 'legacy-slot-secret', tokens: {} };
  for (const purpose of PURPOSES) {
    const none = resolveCredentials({ remoteName: 'origin', remote: remote(), purpose, env: {}, globalConfig });
    assert.is(none.token, undefined, purpose);
    // A stored ref whose secret is missing fails; it does not fall back to the legacy slot.
    const error = expectCode(
      () => resolveCredentials({ remoteName: 'origin', remote: remote({ token_ref: `global:${KEY}` }), purpose, env: {}, globalConfig }),
      'token_missing',
      ExitCode.auth,
    );
    assert.not.ok(error.message.includes('legacy-slot-secret'));
  }
});

test('env: ref whose variable is unset (or empty) → token_env_unset naming the variable and the fix', () => {
  for (const env of [{}, { CI_TOKEN: '' }, { TRACER_TOKEN: 'x' }]) {
    const error = expectCode(
      () =>
        resolveCredentials({
          remoteName: 'prod',
          remote: remote({ token_ref: 'env:CI_TOKEN' }),
          purpose: 'sync',
          env,
          globalConfig: { tokens: { [KEY]: 'stored' } },
        }),
      'token_env_unset',
      ExitCode.auth,
    );
    assert.ok(error.message.includes('CI_TOKEN'));
    assert.ok(error.message.includes('tracer remote set-token prod'));
  }
});

test('stored ref without a secret (no tokens block, or another key) → token_missing', () => {
  for (const globalConfig of [{}, { tokens: {} }, { tokens: { [`${PROJECT}::other`]: 'not mine' } }] as GlobalConfig[]) {
    const error = expectCode(
      () =>
        resolveCredentials({
          remoteName: 'origin',
          remote: remote({ token_ref: `global:${KEY}` }),
          purpose: 'sync',
          env: NOISY_ENV,
          globalConfig,
        }),
      'token_missing',
      ExitCode.auth,
    );
    assert.not.ok(error.message.includes('not mine'));
  }
});

test('no auth block → no token, and nothing else is consulted', () => {
  const credentials = resolveCredentials({
    remoteName: 'origin',
    remote: remote(),
    purpose: 'sync',
    env: NOISY_ENV,
    globalConfig: { tokens: { [KEY]: 'stored' }, auth_token: 'legacy' },
  });
  assert.equal(credentials, { source: 'none' });
});

test('token refs: parse and format round-trip; anything else is invalid_token_ref', () => {
  assert.is(globalTokenKey(PROJECT, 'origin'), KEY);
  for (const text of [`global:${KEY}`, 'env:CI_TOKEN', 'env:_X1']) assert.is(formatTokenRef(parseTokenRef(text)), text);
  assert.equal(parseTokenRef(`global:${KEY}`), { kind: 'global', key: KEY });
  for (const text of ['', 'global:', 'env:', 'env:1BAD', 'env:HAS-DASH', 'raw-token-value', 'GLOBAL:x', 'file:/etc/x']) {
    const error = expectCode(() => parseTokenRef(text), 'invalid_token_ref', ExitCode.localState);
    if (text === 'raw-token-value') assert.ok(error.message.includes(text), 'a ref is not a secret, so it may be quoted');
  }
});

test('maskToken never reveals more than 4 characters, and nothing of a short token', () => {
  assert.is(maskToken('tr_live_abcdefghijklmnop'), '****mnop');
  assert.is(maskToken(''), '****');
  for (let length = 0; length <= 80; length += 1) {
    const token = Array.from({ length }, (_, index) => String.fromCharCode(65 + ((index * 7) % 26))).join('');
    const masked = maskToken(token);
    const revealed = masked.replace(/^\*+/, '');
    assert.ok(revealed.length <= 4, `length ${length}: ${masked}`);
    if (length < 16) assert.is(revealed, '', `length ${length}: a short token is hidden entirely`);
    else assert.is(revealed, token.slice(-4));
  }
});

test.run();
