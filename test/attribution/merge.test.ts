import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hook } from '../capture/hook-fixtures.js';
import { commitAll, gitIn, machine } from '../capture/ledger-helpers.js';
import { cleanup } from '../helpers/cli.js';
import { tracer, write } from './history.js';

test.after(cleanup);

test('a merge: branch lines keep their own commit and agent, the resolution is the merge’s, nothing counts twice', async () => {
  const m = machine();
  const init = await tracer(m, ['init', '--agents', 'none']);
  assert.is(init.code, 0, init.stderr);
  write(m.repo, 'base.txt', ['base']);
  commitAll(m.repo, 'base', { home: m.home });

  gitIn(m.repo, ['checkout', '-q', '-b', 'side'], { home: m.home });
  const side = ['export const side = 1;', 'export const more = 2;'];
  write(m.repo, 'side.ts', side);
  await hook(
    'claude-code',
    'PostToolUse',
    JSON.stringify({
      session_id: 'merge-session',
      transcript_path: join(m.repo, 'none.jsonl'),
      cwd: m.repo,
      hook_event_name: 'PostToolUse',
      model: 'claude-opus-4-1',
      tool_name: 'Write',
      tool_input: { file_path: join(m.repo, 'side.ts'), content: side.map((line) => `${line}\n`).join('') },
      tool_response: { type: 'create', filePath: join(m.repo, 'side.ts'), content: '', structuredPatch: [] },
    }),
    { cwd: m.repo, home: m.home },
  );
  const sideCommit = commitAll(m.repo, 'side, by Claude', { home: m.home });

  gitIn(m.repo, ['checkout', '-q', 'main'], { home: m.home });
  write(m.repo, 'main.txt', ['main work']);
  const mainCommit = commitAll(m.repo, 'main, by hand', { home: m.home });
  gitIn(m.repo, ['merge', '-q', '--no-ff', '--no-commit', 'side'], { home: m.home });
  write(m.repo, 'merge-fix.txt', ['resolved by hand']);
  const merge = commitAll(m.repo, 'merge side', { home: m.home });

  const blamed = JSON.parse((await tracer(m, ['blame', 'side.ts', '--json'])).stdout);
  assert.equal(
    blamed.lines.map((line: any) => [line.commit, line.type, line.agent, line.model_id]),
    side.map(() => [sideCommit, 'ai', 'claude-code', 'anthropic/claude-opus-4-1']),
  );
  const fix = JSON.parse((await tracer(m, ['blame', 'merge-fix.txt', '--json'])).stdout);
  assert.equal(
    fix.lines.map((line: any) => [line.commit, line.type]),
    [[merge, 'human']],
  );
  const shown = JSON.parse((await tracer(m, ['show', merge, '--json'])).stdout);
  assert.equal(shown.lines, { ai: 0, human: 1, mixed: 0, unknown: 0 }, 'the merge adds only its resolution');
  const stats = JSON.parse((await tracer(m, ['stats', `${mainCommit}..HEAD`, '--json'])).stdout);
  assert.is(stats.commits, 2, 'the side commit and the merge');
  assert.equal(stats.lines, { ai: 2, human: 1, mixed: 0, unknown: 0 });
  assert.equal(stats.by_model, { 'anthropic/claude-opus-4-1': 2 });
});

test.run();
