// The placeholder a secret becomes: `[REDACTED:<kind>:<fingerprint>]`. The
// fingerprint is the first 6 hex digits of HMAC-SHA256(salt, secret), the salt
// 32 random bytes in `$TRACER_HOME/redact-salt` (mode 0600, never pushed). So the
// same secret reads the same everywhere in one store and two mentions can be
// correlated, while someone holding only pushed data can neither recover a secret
// nor test a guess against its placeholder. 24 bits: two different secrets of one
// store share a fingerprint with odds of one in 16.7 million.
import { createHmac, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { ensureDir, errnoCode } from '../files/index.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../store/home.js';

export const SALT_FILE = 'redact-salt';
const SALT_TEXT = /^[0-9a-f]{64}$/;
export const FINGERPRINT_DIGITS = 6;

/** Every placeholder redaction writes; detectors' findings inside one are ignored, so redacting twice changes nothing. */
export const PLACEHOLDER = /\[REDACTED:[a-z0-9][a-z0-9._-]*:[0-9a-f]{6}\]/g;
/** A kind as placeholders spell it: lowercase letters, digits, `.`, `_` and `-`. */
export const KIND = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export type Fingerprint = (secret: string) => string;

export function placeholder(kind: string, fingerprint: string): string {
  return `[REDACTED:${kind}:${fingerprint}]`;
}

/** A rule id as a placeholder kind: lowercase, anything outside the kind's alphabet a dash. */
export function kindOf(rule: string): string {
  const kind = rule
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64);
  return kind === '' ? 'secret' : kind;
}

export function fingerprintWith(salt: Buffer): Fingerprint {
  return (secret) => createHmac('sha256', salt).update(secret, 'utf8').digest('hex').slice(0, FINGERPRINT_DIGITS);
}

/**
 * The home's fingerprint, its salt made on first use (an exclusive link, so two
 * hooks racing agree on one). `ephemeral`: when the home cannot hold a salt (a
 * read-only CI home), `tracer redact check` uses one for this run only; capture
 * never does, as its placeholders must stay comparable.
 */
export async function homeFingerprint(home: string, options: { ephemeral?: boolean } = {}): Promise<Fingerprint> {
  const path = join(home, SALT_FILE);
  try {
    return fingerprintWith(await readSalt(path));
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  try {
    await ensureDir(home, PRIVATE_DIR_MODE);
    await writeFileAtomic(path, `${randomBytes(32).toString('hex')}\n`, { mode: PRIVATE_FILE_MODE, exclusive: true });
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') {
      if (options.ephemeral) return fingerprintWith(randomBytes(32));
      throw error;
    }
  }
  return fingerprintWith(await readSalt(path));
}

async function readSalt(path: string): Promise<Buffer> {
  const text = (await readFile(path, 'utf8')).trim();
  if (!SALT_TEXT.test(text)) {
    throw new TracerError(
      'redact_salt_invalid',
      `${path} is not 64 hex digits, so placeholders cannot be fingerprinted; remove it and tracer makes a new one (placeholders made before then no longer match new ones).`,
      { exitCode: ExitCode.localState },
    );
  }
  return Buffer.from(text, 'hex');
}
