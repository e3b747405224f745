import { createHash } from 'node:crypto';
import fs, {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileAtomic, writeFileAtomicSync, writeStreamAtomic } from '../../src/files/atomic-write.js';
import { snapshotTranscript } from '../../src/capture/hook/transcript.js';
import { writeVerifiedBlob } from '../../src/engine/blob-file.js';
import { expectRejection } from '../helpers/errors.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tracer-atomic-')));
let counter = 0;
const freshDir = () => {
  const dir = join(root, `case-${(counter += 1)}`);
  mkdirSync(dir);
  return dir;
};
test.after(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Above Linux's default pid_max, so never a live process. */
const DEAD_PID = 2 ** 22 + 12_345;

/** Replaces fs.promises.open for the length of `run`; `wrap` may hand back a changed handle. */
async function withOpen<T>(wrap: (handle: FileHandle, path: string) => FileHandle, run: () => Promise<T>): Promise<T> {
  const original = fs.promises.open;
  fs.promises.open = (async (path: fs.PathLike, ...rest: unknown[]) =>
    wrap(await (original as (...args: unknown[]) => Promise<FileHandle>)(path, ...rest), String(path))) as typeof original;
  try {
    return await run();
  } finally {
    fs.promises.open = original;
  }
}

/** A handle whose members are the real one's except those given. */
function handleWith(handle: FileHandle, members: Partial<FileHandle>): FileHandle {
  return new Proxy(handle, {
    get: (target, key) => {
      if (Object.hasOwn(members, key)) return members[key as keyof FileHandle];
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

test('the content is replaced by a rename of a complete temp file beside it, named with the pid', async () => {
  const dir = freshDir();
  const path = join(dir, 'settings.json');
  writeFileSync(path, 'old content');
  const next = 'x'.repeat(300 * 1024);
  const original = fs.rename;
  const renames: Array<{ from: string; targetBefore: string; tempContent: string }> = [];
  fs.rename = ((from: fs.PathLike, to: fs.PathLike, callback: fs.NoParamCallback) => {
    renames.push({ from: String(from), targetBefore: readFileSync(String(to), 'utf8'), tempContent: readFileSync(String(from), 'utf8') });
    original(from, to, callback);
  }) as typeof fs.rename;
  try {
    const written = await writeFileAtomic(path, next);
    assert.is(written.path, path);
    assert.is(written.size, next.length);
  } finally {
    fs.rename = original;
  }
  assert.is(renames.length, 1);
  assert.is(dirname(renames[0]!.from), dir, 'same folder: the rename never crosses file systems');
  assert.match(basename(renames[0]!.from), new RegExp(`^settings\\.json\\.tmp-${process.pid}-[0-9a-f]+$`));
  assert.is(renames[0]!.targetBefore, 'old content', 'until the rename the destination holds the old content');
  assert.is(renames[0]!.tempContent, next, 'the temp file is complete before the rename');
  assert.is(readFileSync(path, 'utf8'), next);
  assert.equal(readdirSync(dir), ['settings.json'], 'no temp file left');
});

test('the mode is exact whatever the umask; keepExistingMode keeps a file its own', async () => {
  const dir = freshDir();
  const previous = process.umask(0o077);
  try {
    await writeFileAtomic(join(dir, 'public.json'), '{}');
    assert.is(mode(join(dir, 'public.json')), 0o644, 'the default, not narrowed by the umask');
    await writeFileAtomic(join(dir, 'hook'), '#!/bin/sh\n', { mode: 0o755 });
    assert.is(mode(join(dir, 'hook')), 0o755);
  } finally {
    process.umask(previous);
  }
  const secret = join(dir, 'config.json');
  writeFileSync(secret, '{}', { mode: 0o644 });
  await writeFileAtomic(secret, '{"token":"t"}', { mode: 0o600 });
  assert.is(mode(secret), 0o600, 'replacing a 0644 file with a private one');

  const users = join(dir, 'users-settings.json');
  writeFileSync(users, '{}', { mode: 0o600 });
  await writeFileAtomic(users, '{"hooks":{}}', { mode: 0o644, keepExistingMode: true });
  assert.is(mode(users), 0o600, "a user's private file stays private");
  await writeFileAtomic(join(dir, 'new.json'), '{}', { mode: 0o640, keepExistingMode: true });
  assert.is(mode(join(dir, 'new.json')), 0o640, 'a new file takes the mode given');
});

test('a symlinked file (settings kept in a dotfiles repository) is written where it points and stays a symlink', async () => {
  const dir = freshDir();
  const real = join(dir, 'dotfiles', 'settings.json');
  mkdirSync(dirname(real));
  writeFileSync(real, '{}', { mode: 0o600 });
  const link = join(dir, 'settings.json');
  symlinkSync(real, link);
  const written = await writeFileAtomic(link, '{"hooks":{}}', { mode: 0o644, keepExistingMode: true });
  assert.is(written.path, real);
  assert.ok(lstatSync(link).isSymbolicLink(), 'still a symlink');
  assert.is(readFileSync(real, 'utf8'), '{"hooks":{}}');
  assert.is(mode(real), 0o600, 'the mode of the file it points to');
  assert.equal(readdirSync(dirname(real)), ['settings.json'], 'no temp file beside the real file');
});

test('a short write is finished: write(2) taking fewer bytes than asked is not the end', async () => {
  const dir = freshDir();
  const path = join(dir, 'blob');
  const bytes = Buffer.from(Array.from({ length: 10_000 }, (_, index) => index % 251));
  let calls = 0;
  const short = (handle: FileHandle) =>
    handleWith(handle, {
      // At most 7 bytes per call, as a filling disk does.
      write: (async (buffer: Uint8Array, offset = 0, length = buffer.length - offset) => {
        calls += 1;
        return handle.write(buffer, offset, Math.min(7, length));
      }) as FileHandle['write'],
    });
  await withOpen(short, () => writeFileAtomic(path, bytes));
  assert.ok(readFileSync(path).equals(bytes), 'every byte is down');
  assert.ok(calls >= Math.ceil(bytes.length / 7), `${calls} writes`);

  const streamed = join(dir, 'streamed');
  await withOpen(short, () => writeStreamAtomic(streamed, [bytes.subarray(0, 5000), bytes.subarray(5000)]));
  assert.ok(readFileSync(streamed).equals(bytes), 'the streamed write too');
});

test('a write that takes no bytes at all is a full disk: state_unwritable, old content, no temp', async () => {
  const dir = freshDir();
  const path = join(dir, 'sync-state.json');
  writeFileSync(path, '{"old":true}');
  const full = (handle: FileHandle) =>
    handleWith(handle, { write: (async () => ({ bytesWritten: 0, buffer: Buffer.alloc(0) })) as unknown as FileHandle['write'] });
  const error = await withOpen(full, () => expectRejection(() => writeFileAtomic(path, '{"new":true}'), 'state_unwritable'));
  assert.match(error.message, 'the disk is full');
  assert.ok(error.message.includes(path), error.message);
  assert.is(readFileSync(path, 'utf8'), '{"old":true}');
  assert.equal(readdirSync(dir), ['sync-state.json']);
});

test('the file is fsynced before the rename and its folder after it', async () => {
  const dir = freshDir();
  const path = join(dir, 'remotes.json');
  const events: string[] = [];
  const original = fs.rename;
  fs.rename = ((from: fs.PathLike, to: fs.PathLike, callback: fs.NoParamCallback) => {
    events.push('rename');
    original(from, to, callback);
  }) as typeof fs.rename;
  const watched = (handle: FileHandle, opened: string) =>
    handleWith(handle, {
      sync: async () => {
        events.push(opened === dir ? 'sync folder' : basename(opened).startsWith('remotes.json.tmp-') ? 'sync file' : `sync ${opened}`);
        return handle.sync();
      },
    });
  try {
    await withOpen(watched, () => writeFileAtomic(path, '{}'));
    assert.equal(events, ['sync file', 'rename', 'sync folder']);

    events.length = 0;
    const blob = Buffer.from('streamed bytes');
    await withOpen(watched, () => writeStreamAtomic(path, [blob]));
    assert.equal(events, ['sync file', 'rename', 'sync folder'], 'the streamed write too');
  } finally {
    fs.rename = original;
  }
});

test("abandoned temp files of dead processes are removed; a live writer's is kept; other files are left alone", async () => {
  const dir = freshDir();
  const path = join(dir, 'sync-state.json');
  const dead = `${path}.tmp-${DEAD_PID}-0badc0de`;
  const live = `${path}.tmp-${process.pid}-c0ffee00`;
  const parent = `${path}.tmp-${process.ppid}-c0ffee01`;
  const otherFiles = `${join(dir, 'remotes.json')}.tmp-${DEAD_PID}-0badc0de`;
  for (const file of [dead, live, parent, otherFiles]) writeFileSync(file, 'partial');
  await writeFileAtomic(path, '{}');
  assert.not.ok(existsSync(dead), "a dead process's temp file is removed");
  assert.ok(existsSync(live), 'a running writer keeps its temp file');
  assert.ok(existsSync(parent), 'another running process too');
  assert.ok(existsSync(otherFiles), "another destination's temp files wait for that destination's next write");

  const anchor = join(dir, 'tracer-id');
  writeFileSync(`${anchor}.tmp-${DEAD_PID}-0badc0de`, 'partial');
  writeFileAtomicSync(anchor, 'id\n', { exclusive: true });
  assert.not.ok(existsSync(`${anchor}.tmp-${DEAD_PID}-0badc0de`), 'the synchronous write cleans up as well');
});

test('a failed write leaves the old file and no temp file; errors of the source pass through as they are', async () => {
  const dir = freshDir();
  const path = join(dir, 'config.json');
  writeFileSync(path, 'old');
  const original = fs.rename;
  fs.rename = ((_from: fs.PathLike, _to: fs.PathLike, callback: fs.NoParamCallback) =>
    callback(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }))) as typeof fs.rename;
  try {
    const error = await expectRejection(() => writeFileAtomic(path, 'new'), 'state_unwritable');
    assert.ok(error.message.includes(path));
  } finally {
    fs.rename = original;
  }
  assert.is(readFileSync(path, 'utf8'), 'old');
  assert.equal(readdirSync(dir), ['config.json']);

  const cut = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  async function* source() {
    yield Buffer.from('half of it');
    throw cut;
  }
  try {
    await writeStreamAtomic(path, source());
    assert.unreachable('the source failed');
  } catch (error) {
    assert.is(error, cut, 'a download cut mid-body stays a network error, retried by the client');
  }
  assert.is(readFileSync(path, 'utf8'), 'old');
  assert.equal(readdirSync(dir), ['config.json']);

  await expectRejection(() => writeFileAtomic(join(dir, 'no-such-folder', 'x.json'), '{}'), 'state_unwritable');
  assert.equal(readdirSync(dir), ['config.json']);
});

test('an exclusive write never replaces: EEXIST, the file there untouched, no temp', async () => {
  const dir = freshDir();
  const anchor = join(dir, 'tracer-id');
  writeFileAtomicSync(anchor, 'first\n', { exclusive: true });
  try {
    writeFileAtomicSync(anchor, 'second\n', { exclusive: true });
    assert.unreachable('the anchor exists');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'EEXIST');
  }
  await writeFileAtomic(anchor, 'third\n', { exclusive: true }).then(
    () => assert.unreachable('the anchor exists'),
    (error: { code?: string }) => assert.is(error.code, 'EEXIST'),
  );
  assert.is(readFileSync(anchor, 'utf8'), 'first\n');
  assert.equal(readdirSync(dir), ['tracer-id']);
});

test('the streamed write checks before the rename: a mismatching hash stores nothing', async () => {
  const dir = freshDir();
  const bytes = Buffer.from('the transcript bytes\n'.repeat(1000));
  const right = sha256(bytes);
  const wrong = sha256(Buffer.from('something else'));
  const destination = join(dir, wrong.slice(0, 2), wrong);
  await expectRejection(() => writeVerifiedBlob([bytes.subarray(0, 100), bytes.subarray(100)], wrong, destination), 'sha_mismatch');
  assert.not.ok(existsSync(destination), 'nothing under the wrong name');
  assert.equal(readdirSync(dirname(destination)), [], 'and no temp file');

  const good = join(dir, right.slice(0, 2), right);
  assert.is(await writeVerifiedBlob([bytes], right, good), bytes.length);
  assert.ok(readFileSync(good).equals(bytes));
  assert.equal(readdirSync(dirname(good)), [right]);
});

test('the streamed write can name the file after its content, known only once every byte was read', async () => {
  const dir = freshDir();
  const bytes = Buffer.from('content-addressed');
  const hash = createHash('sha256');
  const written = await writeStreamAtomic(join(dir, '.snapshot'), [bytes], {
    onChunk: (chunk) => hash.update(chunk),
    beforeRename: () => {
      const name = join(dir, 'by-sha', hash.digest('hex'));
      mkdirSync(dirname(name), { recursive: true });
      return name;
    },
  });
  assert.is(written.path, join(dir, 'by-sha', sha256(bytes)));
  assert.ok(readFileSync(written.path).equals(bytes));
  assert.equal(readdirSync(dir).sort(), ['by-sha'], 'no temp file beside the nominal name');
});

test('transcript snapshots go through it: content-addressed, fsynced, and a killed hook leaves nothing for good', async () => {
  const projectDir = freshDir();
  const transcript = join(projectDir, 'transcript.jsonl');
  const bytes = Buffer.from('{"turn":1}\n'.repeat(5000));
  writeFileSync(transcript, bytes);
  const cache = join(projectDir, 'conversations');
  mkdirSync(cache);
  const abandoned = join(cache, `.snapshot.tmp-${DEAD_PID}-0badc0de`);
  writeFileSync(abandoned, 'half a transcript');
  let fileSyncs = 0;
  const counted = (handle: FileHandle) =>
    handleWith(handle, {
      sync: async () => {
        fileSyncs += 1;
        return handle.sync();
      },
    });
  const snapshot = await withOpen(counted, () => snapshotTranscript(projectDir, 'conv-1', transcript, '2026-11-23T00:00:00.000Z'));
  assert.is(snapshot.content_sha256, sha256(bytes));
  const cached = join(cache, snapshot.content_sha256.slice(0, 2), snapshot.content_sha256);
  assert.ok(readFileSync(cached).equals(bytes));
  assert.ok(fileSyncs >= 2, 'the copy and its folder are fsynced');
  assert.not.ok(existsSync(abandoned), "a killed hook's temp file is removed by the next snapshot");
  assert.equal(
    readdirSync(cache).filter((name) => name.startsWith('.snapshot')),
    [],
    'no temp file left',
  );
  const again = await snapshotTranscript(projectDir, 'conv-1', transcript, '2026-11-23T00:00:01.000Z');
  assert.is(again.added, false, 'the same bytes again add nothing');
  assert.ok(readFileSync(cached).equals(bytes));
});

test.run();
