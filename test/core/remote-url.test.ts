import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode, TracerError } from '../../src/core/errors.js';
import { isSlug, parseRemoteUrl } from '../../src/core/remote-url.js';
import { apiRoot } from '../../src/protocol/routes.js';

/** Spec §1, written out here rather than imported, so the message is checked against the spec itself. */
const GRAMMAR_PIECES = [
  '<scheme>://<host>[:port]/<org_slug>/<project_slug>',
  '<scheme>://<host>[:port]/gw/<org_slug>/<project_slug>',
  '^[a-z0-9][a-z0-9._-]{0,63}$',
];

function refusal(input: string): TracerError {
  try {
    parseRemoteUrl(input);
  } catch (error) {
    assert.instance(error, TracerError, input);
    const refused = error as TracerError;
    assert.is(refused.code, 'invalid_remote_url', input);
    assert.is(refused.exitCode, ExitCode.usage, input);
    for (const piece of GRAMMAR_PIECES)
      assert.ok(refused.message.includes(piece), `message for ${input} quotes ${piece}: ${refused.message}`);
    assert.not.match(refused.message, /\n/, 'one line');
    return refused;
  }
  assert.unreachable(`${input} should be refused`);
  throw new Error('unreachable');
}

test('standalone shape: slugs, base URL and the API root at the bare base', () => {
  const parsed = parseRemoteUrl('https://trace.example.com/acme/web');
  assert.equal(parsed, {
    url: 'https://trace.example.com/acme/web',
    base_url: 'https://trace.example.com',
    org_slug: 'acme',
    project_slug: 'web',
    mount: 'standalone',
  });
  assert.is(apiRoot(parsed), 'https://trace.example.com');
});

test('gateway shape: the gw segment, and sync routes under <base>/gw/<org>/<project>', () => {
  const parsed = parseRemoteUrl('http://localhost:8080/gw/acme/web');
  assert.equal(parsed, {
    url: 'http://localhost:8080/gw/acme/web',
    base_url: 'http://localhost:8080',
    org_slug: 'acme',
    project_slug: 'web',
    mount: 'gateway',
  });
  assert.is(apiRoot(parsed), 'http://localhost:8080/gw/acme/web');
});

test('an org or project slug may itself be named gw when the shape is unambiguous', () => {
  const parsed = parseRemoteUrl('https://h.example/gw/gw/gw');
  assert.is(parsed.mount, 'gateway');
  assert.is(parsed.org_slug, 'gw');
  assert.is(parsed.project_slug, 'gw');
  assert.is(parseRemoteUrl('https://h.example/acme/gw').project_slug, 'gw');
});

test('a trailing slash is accepted and dropped; scheme and host are normalized; default ports dropped', () => {
  assert.is(parseRemoteUrl('https://h.example/acme/web/').url, 'https://h.example/acme/web');
  assert.is(parseRemoteUrl('https://h.example/gw/acme/web/').url, 'https://h.example/gw/acme/web');
  const upper = parseRemoteUrl('HTTPS://Trace.EXAMPLE.com:443/acme/web');
  assert.is(upper.base_url, 'https://trace.example.com');
  assert.is(upper.url, 'https://trace.example.com/acme/web');
  assert.is(parseRemoteUrl('http://h.example:80/acme/web').base_url, 'http://h.example');
  assert.is(parseRemoteUrl('http://h.example:8443/acme/web').base_url, 'http://h.example:8443');
});

test('IPv6 and IPv4 hosts with ports', () => {
  const v6 = parseRemoteUrl('http://[::1]:8080/acme/web');
  assert.is(v6.base_url, 'http://[::1]:8080');
  assert.is(apiRoot(v6), 'http://[::1]:8080');
  const v6gw = parseRemoteUrl('https://[2001:db8::1]:9443/gw/acme/web');
  assert.is(apiRoot(v6gw), 'https://[2001:db8::1]:9443/gw/acme/web');
  assert.is(parseRemoteUrl('http://127.0.0.1:3000/acme/web').base_url, 'http://127.0.0.1:3000');
});

test('slug pattern: 64 characters pass, 65 fail; ., _ and - allowed after the first character', () => {
  const sixtyFour = `a${'b'.repeat(63)}`;
  assert.ok(isSlug(sixtyFour));
  assert.not.ok(isSlug(`${sixtyFour}c`));
  assert.is(parseRemoteUrl(`https://h.example/${sixtyFour}/${sixtyFour}`).org_slug, sixtyFour);
  refusal(`https://h.example/${sixtyFour}c/web`);
  refusal(`https://h.example/acme/${sixtyFour}c`);
  for (const slug of ['a', '0', 'a.b_c-d', 'a.', 'acme-', '9lives', 'a..b'])
    assert.is(parseRemoteUrl(`https://h.example/${slug}/web`).org_slug, slug, slug);
});

test('slugs refused: leading . - _, uppercase, spaces, non-ASCII, percent-encoding', () => {
  for (const slug of ['.acme', '-acme', '_acme', 'Acme', 'ACME', 'ac me', 'café', 'ac%6de', 'a+b', 'a~b', 'a@b', "a'b"]) {
    refusal(`https://h.example/${slug}/web`);
    refusal(`https://h.example/gw/acme/${slug}`);
  }
});

test('a percent-encoded slug is quoted as typed, not decoded into something that looks valid', () => {
  const refused = refusal('https://h.example/ac%6De/web');
  assert.ok(refused.message.includes('ac%6De'), refused.message);
  assert.not.ok(refused.message.includes('"acme"'), refused.message);
});

test('dot segments are refused, not silently resolved away', () => {
  for (const input of [
    'https://h.example/acme/../web',
    'https://h.example/x/../acme/web',
    'https://h.example/./acme/web',
    'https://h.example/acme/%2e%2e/web',
    'https://h.example/gw/acme/web/..',
    'https://h.example/acme/web/.',
  ]) {
    refusal(input);
  }
});

test('a bare host is refused with the grammar', () => {
  for (const input of [
    'https://h.example',
    'https://h.example/',
    'http://localhost:8080',
    'https://h.example/gw',
    'https://h.example/gw/',
  ]) {
    refusal(input);
  }
  assert.match(refusal('https://h.example').message, /no org and project slug/);
});

test('wrong segment counts: one slug, extra segments, empty segments, gw in the wrong place', () => {
  for (const input of [
    'https://h.example/acme',
    'https://h.example/acme/web/extra',
    'https://h.example/api/acme/web',
    'https://h.example/gw/acme/web/extra',
    'https://h.example/acme/web/api/v1',
    'https://h.example/gx/acme/web',
    'https://h.example/GW/acme/web',
    'https://h.example/acme/gw/web',
    'https://h.example//acme/web',
    'https://h.example/acme//web',
    'https://h.example/acme/web//',
  ]) {
    refusal(input);
  }
});

test('userinfo, query and fragment are refused without echoing the secret', () => {
  for (const input of [
    'https://alice:s3cr3t-T0KEN@h.example/acme/web',
    'https://s3cr3t-T0KEN@h.example/acme/web',
    'https://:s3cr3t-T0KEN@h.example/gw/acme/web',
    'https://h.example/acme/web?token=s3cr3t-T0KEN',
    'https://h.example/acme/web#s3cr3t-T0KEN',
    'https://h.example/acme/web?',
    'https://h.example/acme/web#',
    // Not a URL at all (space in the host), but a secret is still in it.
    'https://user:s3cr3t-T0KEN@bad host/acme/web',
    'https://bad host/acme/web?token=s3cr3t-T0KEN',
  ]) {
    const refused = refusal(input);
    assert.not.ok(refused.message.includes('s3cr3t'), `${input} → ${refused.message}`);
    assert.not.ok(refused.message.includes('alice'), `${input} → ${refused.message}`);
  }
});

test('schemes other than http and https are refused, naming the scheme', () => {
  for (const input of [
    'ftp://h.example/acme/web',
    'ws://h.example/acme/web',
    'file:///acme/web',
    'git+ssh://h.example/acme/web',
    'ssh://git@h.example/acme/web',
  ]) {
    refusal(input);
  }
  assert.match(refusal('ftp://h.example/acme/web').message, /ftp/);
});

test('things that are not URLs: empty, relative, host only, scp-like, whitespace and backslashes', () => {
  for (const input of [
    '',
    ' ',
    'acme/web',
    '/acme/web',
    'h.example/acme/web',
    'git@h.example:acme/web',
    'https://h.example\\acme\\web',
    'https://h.example/ac\tme/web',
    'https://h.example/acme/we\nb',
    'https:/h.example/acme/web',
    'https:h.example/acme/web',
  ]) {
    refusal(input);
  }
});

test('apiRoot builds both mounts from the derived record fields alone', () => {
  assert.is(apiRoot({ base_url: 'https://h.example', org_slug: 'acme', project_slug: 'web', mount: 'standalone' }), 'https://h.example');
  assert.is(
    apiRoot({ base_url: 'https://h.example:8443', org_slug: 'acme', project_slug: 'web', mount: 'gateway' }),
    'https://h.example:8443/gw/acme/web',
  );
});

test.run();
