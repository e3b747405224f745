// The redaction engine (src/redact/engine.ts, stream.ts, placeholder.ts): the
// placeholder and its keyed fingerprint, JSON lines changed only where a secret
// was, plain-text keys across lines, binary bytes, secrets cut across stream
// chunks, and a detector that fails without stopping the others.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Redactor } from '../../src/redact/engine.js';
import { assignmentsDetector } from '../../src/redact/layers/assignments.js';
import { fingerprintWith, homeFingerprint, PLACEHOLDER, SALT_FILE } from '../../src/redact/placeholder.js';
import { lineSegments, PLAIN_SEGMENT_BYTES, redactStream, SEGMENT_BYTES } from '../../src/redact/stream.js';
import type { RedactionDetector, RedactionProblem } from '../../src/redact/types.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { builtinRedactor } from './corpus-figures.js';
import { Values } from './corpus.js';

test.after(cleanup);

const v = new Values(7);
const awsSecret = () => v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+', 40);
const github = () => `ghp_${v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36)}`;

test('the placeholder names the kind and a 6-digit fingerprint: the same secret reads the same, two secrets differ', async () => {
  const { redactor } = await builtinRedactor();
  const [a, b] = [github(), github()];
  const first = await redactor.redact(`token ${a} and again ${a}\n`);
  const second = await redactor.redact(`elsewhere: ${a}; another: ${b}\n`);
  const all = [...first.text.matchAll(PLACEHOLDER), ...second.text.matchAll(PLACEHOLDER)].map((match) => match[0]);
  assert.is(all.length, 4);
  assert.match(all[0]!, /^\[REDACTED:github-token:[0-9a-f]{6}\]$/);
  assert.is(all[0], all[1], 'one secret, one placeholder, in one text');
  assert.is(all[0], all[2], '...and in another');
  assert.is.not(all[2], all[3], 'two secrets, two placeholders');
  assert.not.ok(first.text.includes(a) || second.text.includes(b));
  await redactor.close();
});

test('the fingerprint is keyed: another salt gives another one, and it is not a hash of the secret alone', async () => {
  const secret = github();
  const one = fingerprintWith(Buffer.alloc(32, 1))(secret);
  const two = fingerprintWith(Buffer.alloc(32, 2))(secret);
  assert.is.not(one, two);
  const { createHash } = await import('node:crypto');
  assert.not.ok(createHash('sha256').update(secret).digest('hex').startsWith(one));
});

test('the salt lives in $TRACER_HOME (0600), is made once, and two racing callers agree on it', async () => {
  const home = join(tempDir('redact-salt-'), 'home');
  const fingerprints = await Promise.all(Array.from({ length: 6 }, () => homeFingerprint(home)));
  const path = join(home, SALT_FILE);
  assert.ok(existsSync(path));
  assert.is((statSync(path).mode & 0o777).toString(8), '600');
  assert.match(readFileSync(path, 'utf8'), /^[0-9a-f]{64}\n$/);
  const secret = github();
  assert.equal(new Set(fingerprints.map((fingerprint) => fingerprint(secret))).size, 1);
  assert.is((await homeFingerprint(home))(secret), fingerprints[0]!(secret), 'read back the next time');
});

test('a JSON line changes only inside the string that held the secret; every other byte stays, escapes included', async () => {
  const { redactor } = await builtinRedactor();
  const secret = awsSecret();
  const before = `{"a":"caf\\u00e9 \\/ \\"quoted\\"","content":"export AWS_SECRET_ACCESS_KEY=\\"${secret}\\"\\nnext line","n":1.50}`;
  const { text, findings } = await redactor.redact(before);
  assert.is(findings.length, 1);
  assert.ok(
    text.startsWith('{"a":"caf\\u00e9 \\/ \\"quoted\\"","content":"export AWS_SECRET_ACCESS_KEY=\\"[REDACTED:aws-secret-access-key:'),
  );
  assert.ok(text.endsWith('\\"\\nnext line","n":1.50}'), text);
  assert.not.ok(text.includes(secret));
  assert.equal(Object.keys(JSON.parse(text)), ['a', 'content', 'n'], 'still one JSON object');
  await redactor.close();
});

test("AWS's documented example keys, which secretlint skips, are redacted under the rules a real key meets", async () => {
  const { redactor } = await builtinRedactor();
  const before = [
    'export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE',
    'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'the key pair AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY from the guide',
  ].join('\n');
  const { text, findings } = await redactor.redact(before);
  assert.not.ok(text.includes('AKIAIOSFODNN7EXAMPLE'), text);
  assert.not.ok(text.includes('EXAMPLEKEY'), text);
  assert.equal(
    findings.map((finding) => finding.rule),
    ['aws-access-key-id', 'aws-secret-access-key', 'aws-access-key-id', 'aws-secret-access-key'],
  );
  assert.match(text, /^export AWS_ACCESS_KEY_ID=\[REDACTED:aws-access-key-id:[0-9a-f]{6}\]$/m);
  assert.match(text, /^export AWS_SECRET_ACCESS_KEY=\[REDACTED:aws-secret-access-key:[0-9a-f]{6}\]$/m);
  await redactor.close();
});

test('a PEM private key the preset would not take for a real one loses its body, the line breaks around it kept; a placeholder body stays', async () => {
  const { redactor } = await builtinRedactor();
  const body = Array.from({ length: 3 }, () => v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 64)).join('\n');
  const short = v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 40);
  const placeholder = '-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----';
  const before = [
    `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`,
    `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE${short}\n-----END OPENSSH PRIVATE KEY-----`,
    placeholder,
  ].join('\n');
  for (const text of [before, JSON.stringify({ content: before })]) {
    const redacted = (await redactor.redact(text)).text;
    assert.not.ok(redacted.includes(body.slice(0, 64)), redacted);
    assert.not.ok(redacted.includes(short), redacted);
    // The line breaks around the body are the text's, kept as they were (a JSON string's are escaped).
    assert.match(redacted, /-----BEGIN RSA PRIVATE KEY-----(\n|\\n)\[REDACTED:private-key:[0-9a-f]{6}\]\1-----END RSA PRIVATE KEY-----/);
    assert.ok(redacted.includes(text === before ? placeholder : JSON.stringify(placeholder).slice(1, -1)), 'the placeholder body is kept');
  }
  await redactor.close();
});

test("OpenAI keys without the preset's T3BlbkFJ infix and Anthropic keys of other lengths are redacted; kebab-case names that start with sk- are not", async () => {
  const { redactor } = await builtinRedactor();
  const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const keys = [`sk-${v.pick(alnum, 48)}`, `sk-proj-${v.pick(`${alnum}_-`, 120)}`];
  for (const key of keys) {
    const { text, findings } = await redactor.redact(`client = OpenAI(api_key="${key}")`);
    assert.not.ok(text.includes(key), text);
    assert.equal(
      findings.map((finding) => finding.rule),
      ['openai-api-key'],
    );
  }
  for (const key of [`sk-ant-api03-${v.pick(alnum, 80)}`, `sk-ant-admin01-${v.pick(`${alnum}_-`, 93)}AA`]) {
    const { text, findings } = await redactor.redact(`export ANTHROPIC_KEY=${key}`);
    assert.not.ok(text.includes(key), text);
    assert.equal(
      findings.map((finding) => finding.rule),
      ['anthropic-api-key'],
    );
  }
  const benign = 'the .sk-button-primary-large-component-wrapper class, and sk-learn-compatible-estimators-for-tabular-data';
  assert.is((await redactor.redact(benign)).text, benign);
  await redactor.close();
});

test('a Kubernetes env pair (name: DB_PASSWORD, then value:) is an assignment; a secretKeyRef or a LOG_LEVEL pair is not', async () => {
  const { redactor } = await builtinRedactor();
  const password = `${v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 14)}7`;
  const manifest = [
    'env:',
    '  - name: DB_PASSWORD',
    `    value: "${password}"`,
    '  - name: LOG_LEVEL',
    '    value: debug',
    '  - name: API_SECRET',
    '    valueFrom:',
    '      secretKeyRef: {name: api, key: secret}',
  ].join('\n');
  for (const text of [manifest, JSON.stringify({ content: manifest }), JSON.stringify({ content: JSON.stringify({ value: manifest }) })]) {
    const { text: redacted, findings } = await redactor.redact(text);
    assert.not.ok(redacted.includes(password), redacted);
    assert.equal(
      findings.map((finding) => finding.rule),
      ['password-assignment'],
      text,
    );
    assert.ok(redacted.includes('secretKeyRef: {name: api, key: secret}') && redacted.includes('value: debug'), redacted);
  }
  await redactor.close();
});

test('a member named like a password is redacted in a JSON line, raw or inside a string of JSON', async () => {
  const { redactor } = await builtinRedactor();
  const raw = '{"user":"app","password":"Tr0ub4dor&3x"}';
  const nested = JSON.stringify({ content: raw });
  for (const line of [raw, nested]) {
    const { text } = await redactor.redact(line);
    assert.not.ok(text.includes('Tr0ub4dor'), text);
    assert.ok(text.includes('"user'), 'the rest stays');
  }
  await redactor.close();
});

test('a PEM key in plain text, across its lines, becomes one placeholder', async () => {
  const { redactor } = await builtinRedactor();
  const body = `MIIEowIBAAKCAQEA${v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 1200)}`;
  const key = `-----BEGIN RSA PRIVATE KEY-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END RSA PRIVATE KEY-----`;
  const { text } = await redactor.redact(`before\n${key}\nafter\n`);
  assert.match(text, /^before\n\[REDACTED:private-key:[0-9a-f]{6}\]\nafter\n$/);
  await redactor.close();
});

test('a PEM key in a plain-text stream is seen whole, wherever the stream is cut into segments', async () => {
  const { redactor } = await builtinRedactor();
  const body = `MIIEowIBAAKCAQEA${v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 1600)}`;
  const key = `-----BEGIN RSA PRIVATE KEY-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END RSA PRIVATE KEY-----\n`;
  // Plain text is cut once PLAIN_SEGMENT_BYTES have gathered: the key stands across that.
  for (const before of [PLAIN_SEGMENT_BYTES - 300, PLAIN_SEGMENT_BYTES - 1000, PLAIN_SEGMENT_BYTES - 40]) {
    const filler = `${'word '.repeat(15)}\n`.repeat(Math.ceil(before / 76)).slice(0, before);
    const text = `${filler.slice(0, filler.lastIndexOf('\n') + 1)}${key}after\n`;
    const bytes = Buffer.from(text);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, index) =>
      bytes.subarray(index * 65536, index * 65536 + 65536),
    );
    const out = (await collect(redactStream(chunks, redactor))).toString();
    assert.not.ok(out.includes(body.slice(16, 64)), `the key's body is gone (key at ${before})`);
    assert.match(out, /word \n\[REDACTED:private-key:[0-9a-f]{6}\]\nafter\n$/, `one placeholder (key at ${before})`);
  }
  // The END line still coming when the first segment is cut.
  const filler = `${'word '.repeat(15)}\n`.repeat(Math.ceil(PLAIN_SEGMENT_BYTES / 76));
  const text = `${filler}${key}after\n`;
  const split = text.indexOf('-----END') + 12;
  const out = (await collect(redactStream([Buffer.from(text.slice(0, split)), Buffer.from(text.slice(split))], redactor))).toString();
  assert.not.ok(out.includes(body.slice(16, 64)), 'the key is gone when its END line comes in the next chunk');
  await redactor.close();
});

test('plain text is read with the lines around a hit, whatever the chunks: a name: / value: pair across 64 KiB', async () => {
  const { redactor } = await builtinRedactor();
  const pair = '- name: DB_PASSWORD\n  value: Hunter2Correct\n';
  const fill = 'just a log line of ordinary output here\n';
  for (const lines of [[], [JSON.stringify({ type: 'user', message: { content: 'hello' } })]]) {
    // Lines (JSON ones first, when given) up to the first chunk's end, which falls between the pair's two lines.
    let head = lines.map((line) => `${line}\n`).join('');
    while (head.length + fill.length < SEGMENT_BYTES - 20) head += fill;
    head = head.padEnd(SEGMENT_BYTES - 20 - 1, 'x') + '\n';
    const bytes = Buffer.from(`${head}${pair}${fill}`);
    const out = (await collect(redactStream([bytes.subarray(0, SEGMENT_BYTES), bytes.subarray(SEGMENT_BYTES)], redactor))).toString();
    assert.not.ok(out.includes('Hunter2Correct'), `the value is gone (${lines.length} JSON lines first)`);
    assert.ok(out.includes('value: [REDACTED:password-assignment:'), out.slice(-200));
  }
  await redactor.close();
});

test('a transcript of JSON lines is read in segments of about 64 KiB, each ending after a whole JSON line', async () => {
  const line = (n: number) => JSON.stringify({ type: 'assistant', n, message: { content: 'word '.repeat(60 + (n % 40)) } });
  const bytes = Buffer.from(Array.from({ length: 2000 }, (_, n) => `${line(n)}\n`).join(''));
  const chunks = Array.from({ length: Math.ceil(bytes.length / 16384) }, (_, index) =>
    bytes.subarray(index * 16384, index * 16384 + 16384),
  );
  const segments: Buffer[] = [];
  for await (const segment of lineSegments(chunks)) segments.push(segment);
  assert.ok(Buffer.concat(segments).equals(bytes), 'every byte once, in order');
  assert.ok(segments.length >= bytes.length / (SEGMENT_BYTES + 16384), `${segments.length} segments for ${bytes.length} bytes`);
  for (const segment of segments) {
    assert.ok(segment.length <= SEGMENT_BYTES + 16384, `a segment of ${segment.length} bytes`);
    assert.ok(segment.subarray(-2).toString() === '}\n', 'it ends after a JSON line');
  }
});

test("a token count is not looked at as an assignment (usage blocks), a token's own name still is", async () => {
  const trigger = assignmentsDetector().trigger!;
  for (const count of ['"input_tokens": 1234', '"cache_read_input_tokens":5', 'outputTokens = 3', 'max_tokens: 1000', 'total-tokens=5'])
    assert.not.ok(trigger.test(count), count);
  for (const named of ['"api_token": "x"', 'GITHUB_TOKEN=abc', 'token: abc', 'input_token_secret = "x"', '"tokens": 5'])
    assert.ok(trigger.test(named), named);
  const { redactor } = await builtinRedactor();
  const secret = v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 32);
  const line = JSON.stringify({ message: { usage: { input_tokens: 5, output_tokens: 7 } }, auth_token: secret });
  const { text } = await redactor.redact(line);
  assert.not.ok(text.includes(secret), text);
  assert.ok(text.includes('"input_tokens":5,"output_tokens":7'), text);
  await redactor.close();
});

test('binary lines come out as the same bytes; a secret in their printable runs is redacted, every other byte kept', async () => {
  const { redactor } = await builtinRedactor();
  const noise = Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x80, 0x0a, 0xe2, 0x82, 0x0a]);
  // Continuation bytes with no lead byte: never UTF-8, so every line holding them is binary.
  const random = Buffer.concat(
    Array.from({ length: 64 }, () => Buffer.concat([Buffer.alloc(512, 0x80), randomBytes(2048), Buffer.from('\n')])),
  );
  const clean = Buffer.concat([noise, random, noise]);
  assert.ok((await collect(redactStream([clean], redactor))).equals(clean), 'binary: the same bytes, whatever they look like');
  // The audit's line: a tool's output with a few stray bytes, which the viewers show as text all the same.
  const secret = `gho_${v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36)}`;
  const stray = Buffer.from([0x93, 0x94, 0x85, 0x93, 0x94, 0x85, 0x93, 0x94, 0x85]);
  const line = Buffer.concat([
    Buffer.from('{"type":"user","message":{"content":"output: '),
    stray,
    Buffer.from(` export GITHUB_TOKEN=${secret}"}}\n`),
  ]);
  for (const dirty of [Buffer.concat([noise, Buffer.from(`token ${secret}\n`), noise]), Buffer.concat([random, line, random])]) {
    const out = await collect(redactStream([dirty], redactor));
    assert.not.ok(out.includes(Buffer.from(secret)));
    const placeholder = /\[REDACTED:github-token:[0-9a-f]{6}\]/.exec(out.toString('latin1'))![0];
    const at = dirty.indexOf(Buffer.from(secret));
    const expected = Buffer.concat([dirty.subarray(0, at), Buffer.from(placeholder), dirty.subarray(at + secret.length)]);
    assert.ok(out.equals(expected), 'every byte but the secret kept');
  }
  // A value glued to a stray byte is read from the printable run only: Latin-1 letters are no password.
  const glued = Buffer.concat([
    Buffer.alloc(64, 0x80),
    Buffer.from('PW:'),
    Buffer.from([0xce, 0x33, 0xee, 0x70, 0xd9, 0xf3]),
    Buffer.alloc(64, 0x81),
  ]);
  assert.ok((await collect(redactStream([glued], redactor))).equals(glued));
  // A short run between stray bytes, as random bytes hold one by chance: too short to be a secret worth the name.
  const chance = Buffer.concat([Buffer.alloc(64, 0x80), Buffer.from('Pw=AuT7Be'), Buffer.alloc(64, 0x81)]);
  assert.ok((await collect(redactStream([chance], redactor))).equals(chance));
  await redactor.close();
});

test('a text line that is not UTF-8 (Latin-1 bytes) is still scanned, and every byte but the secret kept', async () => {
  const { redactor } = await builtinRedactor();
  const secret = github();
  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  // A JSON string whose escapes (\u4e2d, an emoji's surrogates) come back as escapes, not cut to one byte.
  const json = latin1(`{"content":"caf\xe9 \\u4e2d\\u6587 token ${secret} \\ud83d\\ude00 \\u001b[0m"}\n`);
  // Latin-1 prose with many accented letters; a terminal title ended by BEL, and backspaces.
  const prose = latin1(`Mot de passe cr\xe9\xe9 pour l'\xe9l\xe8ve \xe0 l'\xe9cole: ${secret}\n`);
  const terminal = latin1(`\x1b]0;build\x07\x08\x08\x08 caf\xe9 ${secret}\n`);
  for (const line of [json, prose, terminal]) {
    const out = await collect(redactStream([Buffer.from('first line\n'), line], redactor));
    assert.not.ok(out.includes(Buffer.from(secret)), `the secret beside the Latin-1 bytes is redacted: ${line.toString('latin1')}`);
    const placeholder = /\[REDACTED:github-token:[0-9a-f]{6}\]/.exec(out.toString('latin1'))![0];
    const expected = Buffer.concat([Buffer.from('first line\n'), latin1(line.toString('latin1').replace(secret, placeholder))]);
    assert.ok(out.equals(expected), `every other byte kept: ${out.toString('latin1')}`);
  }
  await redactor.close();
});

test('a GitHub token after a literal \\n (JSON inside a JSON string) or a letter beyond ASCII is found; one inside a word is not', async () => {
  const { redactor } = await builtinRedactor();
  const token = `ghp_${'Zq8xW2vN4m'.repeat(3)}T6yB9c`;
  for (const before of ['see \\n', 'a \\t', 'caf\u00e9', '\u00ff']) {
    const { text, findings } = await redactor.redact(`${before}${token} here`);
    assert.is(text, `${before}[REDACTED:github-token:${text.split(':')[2]!.slice(0, 6)}] here`, text);
    assert.equal(
      findings.map((finding) => finding.rule),
      ['github-token'],
    );
  }
  // Glued to an ASCII word it is no token the preset or this complement takes (nor, in prose, a secret).
  const word = `prefix${token}`;
  assert.is((await redactor.redact(word)).text, word);
  await redactor.close();
});

test('an escape that hides a trigger (\\u0067hp_, https:\\/\\/, JSON in a string that escapes /) does not hide the secret; HTML-safe escapes stay', async () => {
  const { redactor } = await builtinRedactor();
  const token = github();
  const password = `Zq8${v.pick('abcdefghijklmnopqrstuvwxyz0123456789', 14)}`;
  const nested = JSON.stringify({ db: `postgres://app:${password}@db/prod` }).replaceAll('/', '\\/');
  const lines = [
    `{"type":"user","message":{"content":"my token is \\u0067${token.slice(1)}"}}`,
    `{"type":"user","message":{"content":"see https:\\/\\/deploy:${password}@git.example.com\\/x"}}`,
    JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', content: nested }] } }),
  ];
  for (const line of lines) {
    const { text, findings } = await redactor.redact(`${line}\n`);
    assert.is(findings.length, 1, line);
    assert.not.ok(text.includes(token.slice(1)) || text.includes(password), text);
    assert.ok(JSON.parse(text), 'still JSON');
  }
  const benign = '{"type":"user","message":{"content":"\\u003cdiv\\u003e \\u0026amp; C:\\\\Users\\\\me \\u001b[0m"}}\n';
  assert.is((await redactor.redact(benign)).text, benign);
  await redactor.close();
});

test('an AWS secret access key ending in / + or = is named as one, before a space, a full stop or the end', async () => {
  const { redactor } = await builtinRedactor();
  for (const end of ['/', '+', '=']) {
    const secret = `${awsSecret().slice(0, 39)}${end}`;
    for (const after of [' then', '. Then', '']) {
      const { text } = await redactor.redact(`export AWS_SECRET_ACCESS_KEY=${secret}${after}`);
      assert.match(text, /^export AWS_SECRET_ACCESS_KEY=\[REDACTED:aws-secret-access-key:[0-9a-f]{6}\]/, text);
      assert.ok(text.endsWith(`]${after}`), text);
    }
  }
  await redactor.close();
});

test("a full stop after a secret is the sentence's: it stays, and the secret reads the same with or without it", async () => {
  const { redactor } = await builtinRedactor();
  const secret = awsSecret();
  const bearer = `Zq8vR3nT5wY1uK7pL2mX9cB4dF6gH${v.pick('abcdef0123456789', 8)}`;
  for (const [line, rule] of [
    [`export AWS_SECRET_ACCESS_KEY=${secret}`, 'aws-secret-access-key'],
    [`password=hunter2-${v.pick('abcdef0123456789', 8)}`, 'password-assignment'],
    [`--token=${v.pick('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 32)}`, 'high-entropy-assignment'],
    [`Authorization: Bearer ${bearer}`, 'bearer-token'],
  ] as const) {
    const { text } = await redactor.redact(`Set it with ${line}. Then ${line} again\n`);
    const placeholders = [...text.matchAll(PLACEHOLDER)].map((match) => match[0]);
    assert.is(placeholders.length, 2, line);
    assert.match(placeholders[0]!, new RegExp(`^\\[REDACTED:${rule}:`), line);
    assert.is(placeholders[0], placeholders[1], `${line}: one secret, one placeholder`);
    assert.ok(text.includes(`${placeholders[0]}. Then`), `${line}: the full stop is kept`);
  }
  // Only a full stop, and only after a value without quotes: `!` is as likely the password's own, and a quote closes the value.
  for (const [line, secret] of [
    ['PASSWORD=Summer2024!', 'Summer2024!'],
    ['--password "Summer2024."', 'Summer2024.'],
    ["--password='Hunter2pass.'", 'Hunter2pass.'],
  ] as const) {
    const { findings } = await redactor.redact(`${line}\n`);
    assert.equal(
      findings.map((finding) => line.slice(finding.start, finding.end)),
      [secret],
      line,
    );
  }
  await redactor.close();
});

test("a Slack app-level token is redacted whole, its 64 hex digits past the preset's 40 included", async () => {
  const { redactor } = await builtinRedactor();
  const tail = v.pick('0123456789abcdef', 64);
  // In prose, where no assignment's span covers it as well.
  const { text } = await redactor.redact(`the app token is xapp-1-A05B6C7D8E9-6123456789012-${tail} now\n`);
  assert.not.ok(text.includes(tail.slice(40)), text);
  assert.match(text, /^the app token is \[REDACTED:slack-token:[0-9a-f]{6}\] now\n$/);
  await redactor.close();
});

test("a PHP define()'s salt is redacted whatever its first character; WordPress's placeholder phrase is not", async () => {
  const { redactor } = await builtinRedactor();
  const salt = `%${v.pick('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#*', 40)}`;
  const { text } = await redactor.redact(`define( 'AUTH_SALT', '${salt}' );\ndefine( 'NONCE_KEY', 'put your unique phrase here' );\n`);
  assert.not.ok(text.includes(salt.slice(1)), text);
  assert.ok(text.includes("define( 'NONCE_KEY', 'put your unique phrase here' );"), text);
  await redactor.close();
});

test('values holding a keyword name, brackets and parentheses in NAME=value form, Go-escaped XML are redacted; their code look-alikes are not', async () => {
  const { redactor } = await builtinRedactor();
  const secrets: Array<[string, string]> = [
    ['{"client_secret":"Xj5d2AmQ1ozzGXhGxUEf7TXQVpfuKC603QY/R5yX9Pw="}', 'Xj5d2AmQ1ozzGXhGxUEf7TXQVpfuKC603QY/R5yX9Pw='],
    ['DATABASE_PASSWORD="Passw0rd:2024x"', 'Passw0rd:2024x'],
    ['mysqladmin --password Passw0rd:2024x status', 'Passw0rd:2024x'],
    ['password=Secret:Pass123', 'Secret:Pass123'],
    ['credentials: {user: admin, password: Sup3rS3cretPw}', 'Sup3rS3cretPw'],
    ['Server=db; User Id=sa; Password = MyP4ssw0rdX; Encrypt=true', 'MyP4ssw0rdX'],
    ['password=Abc[123 and more', 'Abc[123'],
    ['DB_PASSWORD=Summer(2024)x', 'Summer(2024)x'],
    ['export DB_PASSWORD=Pa55<word99', 'Pa55<word99'],
    ['PGPASSWORD=!Xk9vLp2q7 psql -h db', '!Xk9vLp2q7'],
    ['{"content":"\\u003cpassword\\u003eS3cr3tPassw0rd\\u003c/password\\u003e"}', 'S3cr3tPassw0rd'],
  ];
  for (const [line, secret] of secrets) {
    const { text } = await redactor.redact(`${line}\n`);
    assert.not.ok(text.includes(secret), `${line} -> ${text}`);
  }
  for (const benign of [
    'const _authToken = process.env.NPM_TOKEN;',
    'this._authToken = options.authTokenValue',
    'Reset the machine account password through Active Directory.',
    'Each machine root password should be rotated.',
  ])
    assert.is((await redactor.redact(`${benign}\n`)).text, `${benign}\n`);
  await redactor.close();
});

test("a bare value ends at a URL query's next parameter and at the next name holding a keyword", async () => {
  const { redactor } = await builtinRedactor();
  const [a, b] = [
    v.pick('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789', 24),
    v.pick('ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789', 24),
  ];
  const { text } = await redactor.redact(`GET /v1/items?api_key=${a}&format=json&page=2 and token=${a}&api_token=${b} done\n`);
  assert.not.ok(text.includes(a) || text.includes(b), text);
  assert.match(text, /api_key=\[REDACTED:high-entropy-assignment:[0-9a-f]{6}\]&format=json&page=2 /);
  assert.match(text, /token=\[REDACTED:[a-z-]+:[0-9a-f]{6}\]&api_token=\[REDACTED:[a-z-]+:[0-9a-f]{6}\] done/);
  await redactor.close();
});

test('a line of hundreds of thousands of secrets is redacted whole: no crash, no snapshot lost', async () => {
  const { redactor } = await builtinRedactor();
  const line = Buffer.from(`${'password=Zx9q2Lm '.repeat(150_000)}\n`);
  const report = { findings: 0 };
  const out = await collect(redactStream([line], redactor, report));
  assert.is(report.findings, 150_000);
  assert.not.ok(out.includes(Buffer.from('Zx9q2Lm')));
  await redactor.close();
});

test('a secret cut across stream chunks is found, and lines without one come out as the same bytes', async () => {
  const { redactor } = await builtinRedactor();
  const secret = awsSecret();
  const text = `line one\n${'x'.repeat(3000)}\nexport AWS_SECRET_ACCESS_KEY=${secret}\nlast line without newline`;
  const bytes = Buffer.from(text);
  const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, index) => bytes.subarray(index * 7, index * 7 + 7));
  const report = { findings: 0 };
  const out = (await collect(redactStream(chunks, redactor, report))).toString();
  assert.is(report.findings, 1);
  assert.not.ok(out.includes(secret));
  assert.ok(out.startsWith(`line one\n${'x'.repeat(3000)}\nexport AWS_SECRET_ACCESS_KEY=[REDACTED:`));
  assert.ok(out.endsWith('\nlast line without newline'));
  await redactor.close();
});

test('a detector that throws is reported once and dropped; the others still redact', async () => {
  const problems: RedactionProblem[] = [];
  const broken: RedactionDetector = {
    id: 'broken',
    source: 'a test',
    detect() {
      throw new Error('boom');
    },
  };
  const { redactor: builtin } = await builtinRedactor();
  const redactor = new Redactor([broken, ...builtin.detectors], {
    fingerprint: fingerprintWith(Buffer.alloc(32)),
    report: (p) => problems.push(p),
  });
  const secret = github();
  for (let round = 0; round < 3; round += 1) assert.not.ok((await redactor.redact(`a ${secret}\n`)).text.includes(secret));
  assert.equal(
    problems.map((problem) => problem.code),
    ['redact_detector_failed'],
  );
  assert.match(problems[0]!.message, /"broken" \(a test\) failed \(boom\)/);
  await redactor.close();
});

test('spans a detector reports outside the text, or inside an existing placeholder, are ignored', async () => {
  const wild: RedactionDetector = {
    id: 'wild',
    source: 'a test',
    detect: (text) => [
      { start: -3, end: 2 },
      { start: 0, end: text.length + 10 },
      ...[...text.matchAll(/\[REDACTED:[^\]]*\]/g)].map((match) => ({ start: match.index! + 1, end: match.index! + match[0].length - 1 })),
    ],
  };
  const redactor = new Redactor([wild], { fingerprint: fingerprintWith(Buffer.alloc(32)) });
  const text = 'kept [REDACTED:aws-secret-access-key:3f9a1c] kept\n';
  assert.equal(await redactor.redact(text), { text, findings: [] });
});

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test.run();
