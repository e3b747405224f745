import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git, sandbox, cleanup, tempDir } from '../helpers/cli.js';
import { hook } from '../capture/hook-fixtures.js';

// Cursor's transcripts hold no token counts; Cursor 3 reports a generation's in
// its afterAgentResponse and stop payloads (test/fixtures/agents/cursor,
// test/fixtures/README.md). Through the hooks, a commit and `tracer stats
// --cost`: counted once per generation, from the payloads, and said so; with no
// model named, the cost is unknown (model_missing), never a guess.
test.after(cleanup);

const AGENTS = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));
const CONVERSATION = '2dd698cf-0000-4000-8000-000000000001';

test('Cursor: tokens from its payloads, once per generation; no model named, so tokens counted and cost unknown', async () => {
  const box = sandbox();
  assert.is((await box.run(['init', '--agents', 'cursor'])).code, 0);
  git(box.repo, 'add', '-A');
  git(box.repo, 'commit', '-q', '-m', 'hooks');
  const transcript = join(tempDir('cursor-transcript-'), 'transcript.jsonl');
  copyFileSync(join(AGENTS, 'cursor', 'transcript.jsonl'), transcript);
  const payload = (name: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      ...JSON.parse(
        readFileSync(join(AGENTS, 'cursor', `${name}.json`), 'utf8')
          .replaceAll('__REPO__', box.repo)
          .replaceAll('__TRANSCRIPT__', transcript),
      ),
      conversation_id: CONVERSATION,
      ...extra,
    });
  // The recorded edit, in this conversation: the line it wrote is in the file.
  const edited = join(box.repo, 'public/app/plugins/panel/welcome/Welcome.tsx');
  mkdirSync(dirname(edited), { recursive: true });
  writeFileSync(edited, 'const styles = {\n      color: theme.colors.success.text,\n};\n');
  const options = { cwd: box.repo, home: box.home };
  await hook('cursor', 'afterFileEdit', payload('afterFileEdit', { model: undefined }), options);
  await hook('cursor', 'afterAgentResponse', payload('afterAgentResponse'), options);
  await hook('cursor', 'stop', payload('stop'), options);
  git(box.repo, 'add', '-A');
  git(box.repo, 'commit', '-q', '-m', 'welcome');
  assert.is((await box.run(['commit-link'])).code, 0);

  const result = await box.run(['stats', 'HEAD~1..HEAD', '--cost', '--json']);
  assert.is(result.code, 0, result.stderr);
  const cost = JSON.parse(result.stdout).cost;
  const [conversation] = cost.by_conversation;
  assert.is(conversation.conversation_id, CONVERSATION);
  assert.is(conversation.usage, 'known');
  assert.is(conversation.requests, 1, 'afterAgentResponse and stop report one generation');
  assert.equal(conversation.tokens, { input: 17674, output: 220, cache_write: 0, cache_read: 0, reasoning: 0, cache_write_1h: 0 });
  assert.is(conversation.cost_usd, null);
  assert.is(conversation.cost_known, false);
  assert.equal(conversation.unpriced, [{ model: '', requests: 1, reasons: ['model_missing'] }]);
  const text = await box.run(['stats', 'HEAD~1..HEAD', '--cost']);
  assert.match(text.stdout, /no model named: the transcript names no model/);
});

test.run();
