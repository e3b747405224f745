import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lineHash } from '../../src/capture/trace-record.js';
import { cleanup, sandbox, tempDir } from '../helpers/cli.js';
import { fixturePath, hook, payload, projectDir, readJsonl } from './hook-fixtures.js';

test.after(cleanup);

const SESSION = '019a2f4e-7c1d-7b90-a3e5-6f2d8c0b1a44';

function setup() {
  const box = sandbox();
  const transcript = join(tempDir('codex-rollouts-'), 'rollout.jsonl');
  copyFileSync(fixturePath('codex', 'transcript.jsonl'), transcript);
  const send = (event: string) =>
    hook('codex', event, payload('codex', event, { repo: box.repo, transcript }), { cwd: box.repo, home: box.home });
  return { ...box, transcript, send };
}

test('PostToolUse apply_patch: added files and the "+" lines of updated ones', async () => {
  const { repo, home, send } = setup();
  writeFileSync(join(repo, 'CHANGELOG.md'), '# Changelog\n\n## 1.1.0\n- Configurable retries.\n');
  mkdirSync(join(repo, 'pkg'));
  writeFileSync(join(repo, 'pkg/version.txt'), '1.1.0\n');
  await send('PostToolUse');
  const [row] = readJsonl(join(projectDir(home), 'traces.jsonl'));
  assert.is(row!.agent, 'codex');
  assert.is(row!.turn_id, '1');
  assert.is(row!.model, 'gpt-5-codex');
  assert.is(row!.tool, 'apply_patch');
  assert.equal(
    row!.files.map((file: any) => [file.path, file.ranges.map((range: any) => [range.start_line, range.end_line])]),
    [
      ['CHANGELOG.md', [[1, 4]]],
      ['pkg/version.txt', [[1, 1]]],
    ],
  );
  assert.equal(row!.files[0].line_hashes, ['# Changelog', '## 1.1.0', '- Configurable retries.'].map(lineHash));
});

test('Stop: last_assistant_message becomes the summary (once), the rollout is snapshotted', async () => {
  const { home, transcript, send } = setup();
  await send('UserPromptSubmit');
  await send('Stop');
  await send('Stop');
  const dir = projectDir(home);
  const summaries = readJsonl(join(dir, 'session-summaries.jsonl'));
  assert.is(summaries.length, 1);
  assert.is(summaries[0]!.conversation_url, `codex://session/${SESSION}`);
  assert.is(summaries[0]!.summary, 'Added a 1.1.0 entry to CHANGELOG.md and bumped pkg/version.txt to 1.1.0.');
  const sha = createHash('sha256').update(readFileSync(transcript)).digest('hex');
  assert.equal(JSON.parse(readFileSync(join(dir, 'conversations', '_index.json'), 'utf8')), { [SESSION]: sha });
  assert.is(readJsonl(join(dir, 'conversations.jsonl')).length, 1);
  const rows = readJsonl(join(dir, 'traces.jsonl'));
  assert.equal(
    rows.map((row) => row.event),
    ['UserPromptSubmit', 'Stop', 'Stop'],
  );
  assert.is(rows[0]!.prompt_chars, 'Add a CHANGELOG entry and bump the version'.length);
});

test.run();
