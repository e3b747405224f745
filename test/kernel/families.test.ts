import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkFamily, defaultRoute, type FamilyDefinition } from '../../src/kernel/families.js';

const family = (overrides: Partial<FamilyDefinition> = {}): FamilyDefinition => ({
  name: 'notes',
  route: defaultRoute('notes'),
  idMember: 'id',
  required: ['id', 'ts'],
  storage: ['notes.jsonl'],
  file: 'notes.jsonl',
  ...overrides,
});

function refused(definition: FamilyDefinition, known: FamilyDefinition[] = [], pattern?: RegExp) {
  try {
    checkFamily(definition, known);
  } catch (error) {
    if (pattern) assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`${JSON.stringify(definition)} should be refused`);
}

test('a well-formed family passes; the default route is /api/v1/sync/<name>', () => {
  assert.is(defaultRoute('commit-links'), '/api/v1/sync/commit-links');
  checkFamily(family(), [family({ name: 'other', route: defaultRoute('other') })]);
  checkFamily(family({ idMember: null, identity: ['conversation_id', 'content_sha256'], storage: ['conversations'] }), []);
});

test('names: lowercase letters, digits and "-", starting with a letter', () => {
  for (const name of ['', 'Notes', '1notes', 'no tes', 'no_tes', 'notes/x', '-notes', 'n'.repeat(65)])
    refused(family({ name }), [], /family name/);
});

test('a second family with the same name or the same route is refused', () => {
  refused(family({ route: '/api/v1/sync/notes-2' }), [family()], /registered twice/);
  refused(family({ name: 'notes-2' }), [family()], /reuses the route/);
});

test('routes must be paths under /api/v1/', () => {
  for (const route of [
    '/sync/notes',
    'api/v1/sync/notes',
    '/api/v2/sync/notes',
    '/api/v1/',
    '/api/v1/sync/../admin',
    '/api/v1/sync/notes?x=1',
    'https://h/api/v1/sync/notes',
  ]) {
    refused(family({ route }), [], /must be a path under/);
  }
});

test('a family without an id member needs identity members', () => {
  refused(family({ idMember: null }), [], /idMember or identity/);
  refused(family({ idMember: null, identity: [] }), [], /idMember or identity/);
});

test('storage paths and the JSONL file stay inside the project folder', () => {
  for (const path of ['/etc/passwd', '../other-project/traces.jsonl', 'a/../../x', '..\\x', '\\\\server\\share', '']) {
    refused(family({ storage: [path], file: undefined }), [], /must stay inside/);
    refused(family({ storage: ['notes.jsonl'], file: path }), [], /must stay inside/);
  }
  checkFamily(family({ storage: ['conversations', 'conversations/_index.json'], file: 'nested/notes.jsonl' }), []);
});

test.run();
