import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TracerError } from '../../src/core/errors.js';
import { registeredFamily, type FamilyDefinition, type RegisteredFamily } from '../../src/kernel/families.js';

const family = (overrides: Partial<FamilyDefinition> = {}): FamilyDefinition => ({
  name: 'notes',
  idMember: 'id',
  required: ['id', 'ts'],
  storage: ['notes.jsonl'],
  file: 'notes.jsonl',
  ...overrides,
});

const known = (definition: FamilyDefinition, plugin = 'first'): RegisteredFamily => registeredFamily(definition, plugin, []);

function refused(definition: FamilyDefinition, existing: RegisteredFamily[] = [], pattern?: RegExp, code = 'invalid_family') {
  try {
    registeredFamily(definition, 'second', existing);
  } catch (error) {
    assert.instance(error, TracerError);
    assert.is((error as TracerError).code, code);
    assert.is((error as TracerError).plugin, 'second');
    if (pattern) assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`${JSON.stringify(definition)} should be refused`);
}

test('a well-formed family passes with its defaults filled in and its plugin named', () => {
  const notes = registeredFamily(family(), 'notes-plugin', [known(family({ name: 'other', file: 'other.jsonl' }))]);
  assert.is(notes.manifestKey, 'notes_ids');
  assert.is(notes.plugin, 'notes-plugin');
  assert.ok(Object.isFrozen(notes));
  assert.is(registeredFamily(family({ name: 'commit-links' }), 'p', []).manifestKey, 'commit_links_ids');
  registeredFamily(
    family({ idMember: null, identity: ['conversation_id', 'content_sha256'], required: ['conversation_id', 'content_sha256', 'ts'] }),
    'p',
    [],
  );
});

test('names: lowercase letters, digits and "-", starting with a letter', () => {
  for (const name of ['', 'Notes', '1notes', 'no tes', 'no_tes', 'notes/x', '-notes', 'n'.repeat(65)])
    refused(family({ name }), [], /the name/);
});

test('a second family with the same name, or the same manifest key, names both plugins', () => {
  refused(
    family({ manifestKey: 'other_key' }),
    [known(family())],
    /Plugins "first" and "second" both register the family "notes"/,
    'duplicate_family',
  );
  refused(family({ name: 'notes-2', manifestKey: 'notes_ids' }), [known(family())], /manifest key "notes_ids"/, 'duplicate_family');
});

test('the manifest key is snake_case', () => {
  for (const manifestKey of ['Notes', 'notes-ids', '1ids', '']) refused(family({ manifestKey }), [], /snake_case/);
});

test('a family without an id member needs identity members; the id and ts are required members', () => {
  refused(family({ idMember: null }), [], /idMember or identity/);
  refused(family({ idMember: null, identity: [] }), [], /idMember or identity/);
  refused(family({ required: ['id'] }), [], /"ts"/);
  refused(family({ required: ['ts'] }), [], /"id"/);
  refused(family({ idMember: null, identity: ['a', 'b'], required: ['a', 'ts'] }), [], /"b"/);
});

test('storage paths and the JSONL file stay inside the project folder', () => {
  for (const path of ['/etc/passwd', '../other-project/traces.jsonl', 'a/../../x', '..\\x', '\\\\server\\share', '']) {
    refused(family({ storage: [path], file: undefined }), [], /leaves the project folder/);
    refused(family({ storage: ['notes.jsonl'], file: path }), [], /leaves the project folder/);
  }
  registeredFamily(family({ storage: ['conversations', 'conversations/_index.json'], file: 'nested/notes.jsonl' }), 'p', []);
});

test.run();
