// The anchored pass that finds the triggers (src/redact/anchors.ts): the literals
// read off an expression, and, for every built-in trigger, that the pass finds
// every place a regular scan of the trigger would (fast-check, fixed seed).
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnchorScanner, literalStarts } from '../../src/redact/anchors.js';
import { Redactor } from '../../src/redact/engine.js';
import { fingerprintWith } from '../../src/redact/placeholder.js';
import { topLevelAlternatives } from '../../src/redact/spans.js';
import { builtinRedactor } from './corpus-figures.js';

const seed = Number(process.env.TRACER_FUZZ_SEED ?? 3030);

test('literals are read off the start of an alternative, up to the first thing that is not one', () => {
  assert.equal(literalStarts('(?:npm_)', ''), { starts: ['npm_'], fold: false, plain: true });
  assert.equal(literalStarts('hooks\\.slack\\.com', ''), { starts: ['hooks.slack.'], fold: false, plain: false }, 'cut at twelve');
  assert.equal(literalStarts(':\\/\\/[^\\s/]{1,300}@', '')?.starts, ['://']);
  assert.equal(literalStarts('\\b(?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z0-9]{16}\\b', '')?.starts, ['A3T', 'AKIA', 'ASIA']);
  assert.equal(literalStarts('[sr]k_(?:live|test)_', '')?.starts, ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_']);
  assert.equal(literalStarts('(?:SECRET|Secret)_?ACCESS', '')?.starts, ['SECRET', 'Secret']);
  assert.equal(literalStarts('(?:pass|pw(?![a-z]))[a-z]{0,4}=', 'i'), { starts: ['pass', 'pw'], fold: true, plain: false });
  assert.equal(literalStarts('Token', 'i'), { starts: ['token'], fold: true, plain: true });
  assert.equal(literalStarts('ab+c', '')?.starts, ['ab'], 'a repeated character ends the literal after it');
  assert.equal(literalStarts('--(?:user|[a-z]{0,9}key)', '')?.starts, ['--user', '--']);
});

test('an alternative that may start with anything but a literal is left to a regular scan', () => {
  for (const source of ['\\d{3}-\\d{4}', 'a?b', '(?:x|\\d)y', '.', '[a-z]+', '(?=a)a', '(?:ab)?c', '[^x]', 'ü', '(?:a|)'])
    assert.is(literalStarts(source, ''), undefined, source);
  assert.is(literalStarts('token', 'iu'), undefined, 'case folding under u reaches past ASCII');
  assert.is(literalStarts('\u212Aey=', 'i'), undefined, 'the Kelvin sign folds to no ASCII k: a regular scan finds it');
  assert.equal(literalStarts('a|bc', '')?.starts, ['a', 'bc'], 'a whole pattern: every alternative gives its own');
  assert.is(literalStarts('[abcd]'.repeat(12), ''), undefined, 'more than 64 literals: scanned, and found out without trying all 4^12');
});

test('the scanner compares literals in full, without ASCII case when folded, and runs the alternative where one stands', () => {
  const scanner = new AnchorScanner<string>();
  scanner.add({ owner: 'npm', starts: ['npm_'], fold: false });
  scanner.add({ owner: 'key', starts: ['key'], fold: true, verify: /key\s*=/iy });
  scanner.add({ owner: 'at', starts: ['@'], fold: false });
  const hits = scanner.scan('npm npm_ KEY = x, key: y, a@b, ünpm_').map(({ owner, index }) => [owner, index]);
  assert.equal(hits, [
    ['npm', 4],
    ['key', 9],
    ['at', 27],
    ['npm', 32],
  ]);
});

test('the last characters of a text are scanned like any others: a one-character literal, a pair, nothing past the end', () => {
  const scanner = new AnchorScanner<string>();
  scanner.add({ owner: 'at', starts: ['@'], fold: false });
  scanner.add({ owner: 'pair', starts: ['xy'], fold: false });
  scanner.add({ owner: 'three', starts: ['xyz'], fold: false });
  const hits = (text: string) => scanner.scan(text).map(({ owner, index }) => `${owner}@${index}`);
  assert.equal(hits('a@'), ['at@1']);
  assert.equal(hits('@'), ['at@0']);
  assert.equal(hits('axy'), ['pair@1']);
  assert.equal(hits('axyz'), ['pair@1', 'three@1']);
  assert.equal(hits('ax'), []);
  assert.equal(hits(''), []);
  // A long text first, as a hook's first segment is: the loop's compiled code then meets the short ones.
  assert.equal(hits(`${'abc '.repeat(50_000)}@`), ['at@200000']);
  assert.equal(hits('xy@'), ['pair@0', 'at@2']);
});

test("a plugin's trigger: a backreference keeps its group, and alternatives without a literal are scanned one by one", async () => {
  const found = (pattern: RegExp) => ({
    id: 'plugin',
    source: 'a plugin',
    trigger: pattern,
    detect: (text: string) =>
      [...text.matchAll(/tok_\w+|\dQ[A-Z]{6}/g)].map((match) => ({ start: match.index!, end: match.index! + match[0].length })),
  });
  for (const [trigger, text] of [
    [/(["'])x\1|(["'])tok_\2/, "key: 'tok_' tok_xyz\n"],
    [/(q)q|(\d)\2tok/, '77tok tok_xyz\n'],
    [/a|[a-z][^;]*;|\dQ/, 'a\n{"k":"5QSECRET"}\n;'],
  ] as const) {
    const redactor = new Redactor([found(trigger)], { fingerprint: fingerprintWith(Buffer.alloc(32, 7)) });
    const { text: out } = await redactor.redact(text);
    assert.not.ok(/tok_xyz|5QSECRET/.test(out), `${trigger}: ${out}`);
  }
  assert.not.throws(() => new Redactor([found(/(a)x|(b)\2/u)]), 'a backreference past its alternative still builds');
});

test("the scanner keeps at most perLine of an owner's hits on one line, counting only places that match", () => {
  const scanner = new AnchorScanner<string>();
  scanner.add({ owner: 'key', starts: ['key'], fold: false, verify: /key=/y });
  scanner.add({ owner: 'at', starts: ['@'], fold: false });
  const text = 'key key key= key= key= @@@\nkey= @ key=';
  const hits = scanner.scan(text, 2).map(({ owner, index }) => `${owner}${index}`);
  assert.equal(hits, ['key8', 'key13', 'at23', 'at24', 'key27', 'at32', 'key34']);
  assert.is(scanner.scan(text).length, 9, 'uncapped: every one');
});

test('for every built-in trigger, the anchored pass finds every place a regular scan of the trigger finds', async () => {
  const { redactor } = await builtinRedactor(true);
  const alternatives = redactor.detectors.flatMap((detector) =>
    detector.trigger ? topLevelAlternatives(detector.trigger.source).map((source) => ({ source, flags: detector.trigger!.flags })) : [],
  );
  const anchored = alternatives.flatMap(({ source, flags }) => {
    const literal = literalStarts(source, flags.replace(/[gy]/g, ''));
    return literal ? [{ source, flags: flags.replace(/[gy]/g, ''), literal }] : [];
  });
  assert.ok(anchored.length >= alternatives.length - 2, `${anchored.length} of ${alternatives.length} alternatives anchored`);
  // Text made of the triggers' own pieces, in any case, among noise.
  const piece = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc
      .constantFrom(...anchored.flatMap(({ literal }) => literal.starts))
      .chain((start) => fc.boolean().map((upper) => (upper ? start.toUpperCase() : start))),
    fc.constantFrom('=', ': ', '"', '\\"', '\\n', '\n', '_', '-', 'KEY', 'A'.repeat(16), '0123456789abcdefABCDEF', ' '),
  );
  await fc.assert(
    fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
      const text = parts.join('');
      for (const { source, flags, literal } of anchored) {
        const scanner = new AnchorScanner<string>();
        scanner.add({
          owner: source,
          starts: literal.starts,
          fold: literal.fold,
          verify: literal.plain ? undefined : new RegExp(source, `${flags}y`),
        });
        const found = new Set(scanner.scan(text).map(({ index }) => index));
        for (const match of text.matchAll(new RegExp(source, `${flags}g`)))
          assert.ok(found.has(match.index!), `${source} matches at ${match.index} of ${JSON.stringify(text)}`);
        const sticky = new RegExp(source, `${flags}y`);
        for (const index of found) {
          sticky.lastIndex = index;
          assert.ok(sticky.test(text), `${source} found where it does not match: ${index} of ${JSON.stringify(text)}`);
        }
      }
    }),
    { seed, numRuns: 300 },
  );
  await redactor.close();
});

test.run();
