// Holds a lock of store/file-lock.ts until killed, for file-lock.test.ts: says "held" on stdout once it has it.
import { takeLock } from '../../src/store/file-lock.js';

// Only when started for it: a test runner that globs this folder must not take a lock on its arguments.
if (process.env.TRACER_LOCK_HOLDER !== '1') process.exit(0);
const [path = '', purpose = 'the background fold'] = process.argv.slice(2);
const release = await takeLock(path, { waitMs: 30_000, purpose });
if (!release) process.exit(3);
process.stdout.write('held\n');
setInterval(() => undefined, 60_000);
