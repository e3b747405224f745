import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizeDroid } from '../../src/plugins/agents/droid.js';
import { cleanup, tempDir } from '../helpers/cli.js';

/**
 * Factory Droid payloads as recorders of real Droid sessions met them
 * (test/fixtures/README.md): the common members in snake_case or in camelCase
 * (`sessionId`, `transcriptPath`), and the model in the session's
 * `<session>.settings.json` beside its transcript, not in the transcript.
 */
test.after(cleanup);

const DROID_DIR = fileURLToPath(new URL('../fixtures/agents/droid/', import.meta.url));

/** The captured transcript and its settings file, side by side as Droid keeps them. */
function session(): string {
  const dir = tempDir('droid-session-');
  copyFileSync(join(DROID_DIR, 'transcript.jsonl'), join(dir, 'session.jsonl'));
  copyFileSync(join(DROID_DIR, 'transcript.settings.json'), join(dir, 'session.settings.json'));
  return join(dir, 'session.jsonl');
}

function editPayload(transcript: string): Record<string, unknown> {
  return JSON.parse(
    readFileSync(join(DROID_DIR, 'PostToolUse.Edit.json'), 'utf8')
      .replaceAll('__REPO__', '/home/user/project')
      .replaceAll('__TRANSCRIPT__', transcript),
  );
}

test("snake_case payload: the model comes from the session's settings file", () => {
  const event = normalizeDroid('PostToolUse', editPayload(session()));
  assert.is(event.conversationId, 'b6f1c2d4-8e3a-4f7b-a9c0-5d2e7f1a3b64');
  assert.is(event.model, 'custom:BYOK-GPT-5-MINI-0');
  assert.is(event.writes[0]!.filePath, '/home/user/project/greet.py');
});

test('camelCase common members (sessionId, transcriptPath) are read the same way', () => {
  const { session_id, transcript_path, ...rest } = editPayload(session());
  const event = normalizeDroid('PostToolUse', { ...rest, sessionId: session_id, transcriptPath: transcript_path });
  assert.is(event.conversationId, 'b6f1c2d4-8e3a-4f7b-a9c0-5d2e7f1a3b64');
  assert.is(event.model, 'custom:BYOK-GPT-5-MINI-0');
  const stop = normalizeDroid('Stop', { sessionId: session_id, transcriptPath: transcript_path });
  assert.is(stop.transcriptPath, transcript_path);
});

test('ApplyPatch with the patch as the whole tool_input, as the captured transcript has it under `input`', () => {
  const transcript = session();
  const line = readFileSync(transcript, 'utf8')
    .split('\n')
    .find((text) => text.includes('"name":"ApplyPatch"'))!;
  const block = JSON.parse(line).message.content.find((entry: { name?: string }) => entry.name === 'ApplyPatch');
  for (const input of [block.input, block.input.input]) {
    const event = normalizeDroid('PostToolUse', { session_id: 's', tool_name: 'ApplyPatch', tool_input: input });
    assert.equal(
      event.writes.map((write) => write.filePath),
      ['/home/user/project/index.ts'],
    );
  }
});

test('a payload with neither session member is refused with missing_field', () => {
  assert.throws(
    () => normalizeDroid('PostToolUse', { tool_name: 'Edit', tool_input: {} }),
    (error: Error & { code?: string }) => error.code === 'missing_field',
  );
});

test.run();
