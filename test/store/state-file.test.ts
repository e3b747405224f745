import fs, { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExitCode } from '../../src/core/errors.js';
import { PRIVATE_FILE_MODE } from '../../src/store/home.js';
import { isPlainObject, readStateFile, updateStateFile, writeStateFile } from '../../src/store/state-file.js';
import { expectRejection } from '../helpers/errors.js';

const root = mkdtempSync(join(tmpdir(), 'tracer-state-'));
let counter = 0;
const freshDir = () => {
  const dir = join(root, `case-${(counter += 1)}`);
  mkdirSync(dir);
  return dir;
};
test.after(() => rmSync(root, { recursive: true, force: true }));

const objectFile = { empty: () => ({ fresh: true }) };
const mode = (path: string) => statSync(path).mode & 0o777;

test('write then read round-trips; a missing file reads as the empty value', async () => {
  const path = join(freshDir(), 'nested', 'deeper', 'sync-state.json');
  assert.equal(await readStateFile(path, objectFile), { fresh: true });
  assert.not.ok(existsSync(path), 'reading never creates');
  await writeStateFile(path, { cursor: 'abc', list: [1, 'é'] });
  assert.equal(await readStateFile(path, objectFile), { cursor: 'abc', list: [1, 'é'] });
  assert.ok(readFileSync(path, 'utf8').endsWith('}\n'));
  assert.is(mode(dirname(path)), 0o700, 'folders created for state are private');
});

test('atomic write: a temp file in the same folder is renamed over the target, which is never partial', async () => {
  const dir = freshDir();
  const path = join(dir, 'remotes.json');
  const old = { remotes: { origin: { url: 'https://h.example/acme/web' } } };
  await writeStateFile(path, old, PRIVATE_FILE_MODE);
  const next = { remotes: { origin: { url: 'https://h.example/acme/web' }, big: { url: 'x'.repeat(512 * 1024) } } };

  const original = fs.rename;
  const renames: Array<{ from: string; to: string; targetBefore: string; tempContent: string; tempMode: number }> = [];
  fs.rename = ((from: fs.PathLike, to: fs.PathLike, callback: fs.NoParamCallback) => {
    renames.push({
      from: String(from),
      to: String(to),
      targetBefore: readFileSync(String(to), 'utf8'),
      tempContent: readFileSync(String(from), 'utf8'),
      tempMode: mode(String(from)),
    });
    original(from, to, callback);
  }) as typeof fs.rename;
  try {
    await writeStateFile(path, next, PRIVATE_FILE_MODE);
  } finally {
    fs.rename = original;
  }
  assert.is(renames.length, 1);
  const [rename] = renames;
  assert.is(dirname(rename!.from), dir, 'temp file in the same folder (rename stays on one file system)');
  assert.is.not(rename!.from, path);
  assert.equal(JSON.parse(rename!.targetBefore), old, 'until the rename the target holds the old content, whole');
  assert.equal(JSON.parse(rename!.tempContent), next, 'the temp file is complete before it is renamed');
  assert.is(rename!.tempMode, 0o600, 'the secret is never readable by others, not even in the temp file');
  assert.equal(JSON.parse(readFileSync(path, 'utf8')), next);
  assert.equal(readdirSync(dir), ['remotes.json'], 'no temp file left behind');
});

test('modes: 0600 for private files (also when replacing a 0644 file), 0644 by default', async () => {
  const dir = freshDir();
  const publicPath = join(dir, 'project-config.json');
  await writeStateFile(publicPath, { notes: 'n' });
  assert.is(mode(publicPath), 0o644);
  const privatePath = join(dir, 'config.json');
  writeFileSync(privatePath, '{}', { mode: 0o644 });
  await writeStateFile(privatePath, { tokens: { 'p::origin': 'secret' } }, PRIVATE_FILE_MODE);
  assert.is(mode(privatePath), 0o600);
  await updateStateFile(privatePath, { empty: () => ({}), mode: PRIVATE_FILE_MODE }, (value: Record<string, unknown>) => {
    value.more = true;
  });
  assert.is(mode(privatePath), 0o600, 'update keeps the private mode');
});

test('corrupt JSON is moved aside to <name>.corrupt-<stamp>, bytes preserved, path in the message', async () => {
  const dir = freshDir();
  const path = join(dir, 'remotes.json');
  const bytes = Buffer.from('{"remotes": {"origin": {"url": "https://h.example/a/b"}, \u00e9 truncated', 'utf8');
  writeFileSync(path, bytes);
  const error = await expectRejection(() => readStateFile(path, objectFile), 'state_file_corrupt');
  assert.is(error.exitCode, ExitCode.localState);
  const aside = readdirSync(dir).filter((name) => name !== 'remotes.json');
  assert.is(aside.length, 1);
  assert.match(aside[0]!, /^remotes\.json\.corrupt-[0-9TZ-]+$/);
  assert.ok(error.message.includes(join(dir, aside[0]!)), error.message);
  assert.not.match(error.message, /\n/);
  assert.ok(readFileSync(join(dir, aside[0]!)).equals(bytes), 'original bytes preserved');
  assert.not.ok(existsSync(path), 'the corrupt file is not left in place');
  assert.equal(await readStateFile(path, objectFile), { fresh: true }, 'the next read starts from empty');
});

test('a file with the wrong shape is moved aside too (default: must be an object; custom checks)', async () => {
  const dir = freshDir();
  const path = join(dir, 'projects.json');
  writeFileSync(path, '[1, 2, 3]\n');
  await expectRejection(() => readStateFile(path, objectFile), 'state_file_corrupt');
  assert.is(readdirSync(dir).filter((name) => name.startsWith('projects.json.corrupt-')).length, 1);

  writeFileSync(path, '{"projects": "not an object"}');
  const shape = {
    empty: () => ({ projects: {} }),
    isValid: (v: unknown): v is { projects: object } => isPlainObject(v) && isPlainObject(v.projects),
  };
  await expectRejection(() => readStateFile(path, shape), 'state_file_corrupt');
  for (const text of ['null', '"text"', '42', '']) {
    writeFileSync(path, text);
    await expectRejection(() => readStateFile(path, objectFile), 'state_file_corrupt');
  }
});

test('a file corrupted again right away never overwrites the earlier copy set aside', async () => {
  const dir = freshDir();
  const path = join(dir, 'config.json');
  const versions = ['{broken one', '{broken two', '{broken three', '{broken four'];
  for (const text of versions) {
    writeFileSync(path, text);
    await expectRejection(() => readStateFile(path, objectFile), 'state_file_corrupt');
  }
  const kept = readdirSync(dir)
    .filter((name) => name.startsWith('config.json.corrupt-'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .sort();
  assert.equal(kept, [...versions].sort());
});

test('update on a corrupt file throws and writes nothing', async () => {
  const dir = freshDir();
  const path = join(dir, 'sync-state.json');
  writeFileSync(path, 'garbage');
  let changed = false;
  await expectRejection(
    () =>
      updateStateFile(path, objectFile, () => {
        changed = true;
      }),
    'state_file_corrupt',
  );
  assert.not.ok(changed);
  assert.not.ok(existsSync(path));
});

test('an unwritable path fails with state_unwritable and names the path', async () => {
  const dir = freshDir();
  const blocker = join(dir, 'home-is-a-file');
  writeFileSync(blocker, 'x');
  const target = join(blocker, 'config.json');
  const error = await expectRejection(() => writeStateFile(target, { a: 1 }), 'state_unwritable');
  assert.is(error.exitCode, ExitCode.localState);
  assert.ok(error.message.includes(target));
  await expectRejection(() => updateStateFile(target, objectFile, () => undefined), 'state_unwritable');
  assert.is(readFileSync(blocker, 'utf8'), 'x');
});

test('a state path that is a folder cannot be read: state_unreadable, nothing moved', async () => {
  const dir = freshDir();
  const path = join(dir, 'remotes.json');
  mkdirSync(path);
  const error = await expectRejection(() => readStateFile(path, objectFile), 'state_unreadable');
  assert.ok(error.message.includes(path));
  assert.equal(readdirSync(dir), [basename(path)]);
});

test.run();
