import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, settleSpool } from '../helpers/cli.js';
import { ledgerRecordOf } from '../../src/capture/ledger/ledger-line.js';
import { gitIn, ledgerOf, machine } from '../capture/ledger-helpers.js';
import {
  buildHistory,
  BY_HAND,
  CLAUDE_MODEL_ID,
  CLAUDE_SESSION,
  CODEX_MODEL_ID,
  CODEX_SESSION,
  CURSOR_CONVERSATION,
  CURSOR_MODEL_ID,
  GREET,
  PRE_TRACER,
  REVIEWED,
  SHOUT,
  tracer,
  UTIL,
  write,
  type History,
} from './history.js';

test.after(cleanup);

/** One history for the file: building it through the hooks takes a few seconds. */
let built: Promise<History> | undefined;
const history = () => (built ??= buildHistory());

const CLAUDE = { type: 'ai', agent: 'claude-code', model_id: CLAUDE_MODEL_ID, conversation_url: `claude-code://session/${CLAUDE_SESSION}` };
const CODEX = { type: 'ai', agent: 'codex', model_id: CODEX_MODEL_ID, conversation_url: `codex://session/${CODEX_SESSION}` };
const CURSOR = { type: 'ai', agent: 'cursor', model_id: CURSOR_MODEL_ID, conversation_url: `cursor://conversation/${CURSOR_CONVERSATION}` };
const PERSON = { type: 'human', agent: null, model_id: null, conversation_url: null };

async function blameJson(h: History, args: string[]) {
  const result = await tracer(h, ['blame', ...args, '--json']);
  assert.is(result.code, 0, result.stderr);
  assert.is(result.stderr, '');
  return JSON.parse(result.stdout);
}

test('blame: every line of a renamed, amended file has the commit and the author known by construction', async () => {
  const h = await history();
  const report = await blameJson(h, ['src/hello.ts']);
  assert.is(report.path, 'src/hello.ts');
  assert.is(report.rev, h.amended);
  const expected = [
    ...BY_HAND.map((content) => ({ commit: h.person, ...PERSON, content })),
    ...GREET.map((content) => ({ commit: h.claude, ...CLAUDE, content })),
    ...SHOUT.map((content) => ({ commit: h.amended, ...CODEX, content })),
    { commit: h.amended, ...PERSON, content: REVIEWED },
  ].map((line, index) => ({ line: index + 1, ...line }));
  assert.equal(report.lines, expected);
  assert.equal(Object.keys(report.lines[0]), ['line', 'commit', 'type', 'agent', 'model_id', 'conversation_url', 'content']);
});

test('blame: separate and grouped flags, and any option order, give the same answer', async () => {
  const h = await history();
  const plain = await tracer(h, ['blame', 'src/hello.ts', '-w', '--json']);
  // "-wM" groups two flags, and the path comes last: clipanion parses both spellings alike.
  const parsed = await tracer(h, ['blame', '-wM', '--json', 'src/hello.ts']);
  assert.is(parsed.code, 0, parsed.stderr);
  assert.equal(JSON.parse(parsed.stdout), JSON.parse(plain.stdout));
  const fromSubfolder = await tracer(h, ['blame', 'hello.ts', '-w', '--json'], join(h.repo, 'src'));
  assert.equal(JSON.parse(fromSubfolder.stdout), JSON.parse(plain.stdout), 'a path relative to the working directory');
  const help = await tracer(h, ['blame', '--help']);
  assert.match(help.stdout, /tracer blame/);
});

test('blame: a commit from before tracer is unknown; Cursor lines carry its conversation', async () => {
  const h = await history();
  const pre = await blameJson(h, ['app.ts']);
  assert.equal(
    pre.lines.map((line: any) => [line.commit, line.type, line.agent]),
    PRE_TRACER.map(() => [h.pre, 'unknown', null]),
  );
  const util = await blameJson(h, ['lib/util.py']);
  assert.equal(
    util.lines.map(({ line: _line, content: _content, ...rest }: any) => rest),
    UTIL.map(() => ({ commit: h.cursor, ...CURSOR })),
  );
});

test('blame: --rev reads the file as an older commit had it; --line keeps a window', async () => {
  const h = await history();
  const old = await blameJson(h, ['src/greet.ts', '--rev', h.person]);
  assert.is(old.rev, h.person);
  assert.is(old.working_tree, false);
  assert.equal(
    old.lines.map((line: any) => [line.line, line.commit, line.type]),
    [...BY_HAND.map(() => h.person), ...GREET.map(() => h.claude)].map((commit, index) => [
      index + 1,
      commit,
      commit === h.claude ? 'ai' : 'human',
    ]),
  );
  const window = await blameJson(h, ['src/hello.ts', '--line', '6-8']);
  assert.equal(
    window.lines.map((line: any) => [line.line, line.type, line.agent]),
    [
      [6, 'ai', 'claude-code'],
      [7, 'ai', 'codex'],
      [8, 'ai', 'codex'],
    ],
  );
});

test('blame: the ledger of the commit an amend replaced is not used, the new one is', async () => {
  const h = await history();
  assert.ok(ledgerOf(h, h.codexBeforeAmend), 'the replaced commit has its own ledger');
  const report = await blameJson(h, ['src/hello.ts']);
  assert.not.ok(report.lines.some((line: any) => line.commit === h.codexBeforeAmend));
});

test('blame: uncommitted lines of the working tree are shown as such', async () => {
  const h = await history();
  const path = join(h.repo, 'src/hello.ts');
  const before = readFileSync(path, 'utf8');
  try {
    writeFileSync(path, `${before}// not committed\n`);
    const report = await blameJson(h, ['src/hello.ts']);
    assert.equal(report.lines.at(-1), {
      line: 11,
      commit: null,
      type: 'uncommitted',
      agent: null,
      model_id: null,
      conversation_url: null,
      content: '// not committed',
    });
    const text = await tracer(h, ['blame', 'src/hello.ts']);
    assert.match(text.stdout.split('\n').at(-2)!, /^00000000 .*-- \(Not Committed Yet\s+11\) \/\/ not committed$/);
  } finally {
    writeFileSync(path, before);
  }
});

test('blame: text output reads like git blame, with a tag column', async () => {
  const h = await history();
  const result = await tracer(h, ['blame', 'src/hello.ts']);
  assert.is(result.code, 0, result.stderr);
  const lines = result.stdout.trimEnd().split('\n');
  assert.is(lines.length, 10);
  assert.match(
    lines[3]!,
    new RegExp(
      `^${h.claude.slice(0, 8)} src/greet.ts AI \\(claude-code ${CLAUDE_MODEL_ID}\\s+\\d{4}-\\d\\d-\\d\\d  4\\) ${escape(GREET[0]!)}$`,
    ),
  );
  assert.match(lines[1]!, new RegExp(`^${h.person.slice(0, 8)} src/greet.ts HU \\(Test\\s+\\d{4}-\\d\\d-\\d\\d  2\\) ${BY_HAND[1]}$`));
  assert.match(lines[9]!, new RegExp(`^${h.amended.slice(0, 8)} src/hello.ts HU \\(Test .* 10\\) ${REVIEWED}$`));
});

test('show: one commit, its lines by type, files, conversations and the commit it replaced', async () => {
  const h = await history();
  const result = await tracer(h, ['show', '--json']);
  assert.is(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.is(report.commit, h.amended);
  assert.is(report.ledger_sha, ledgerOf(h, h.amended).sha);
  assert.equal(report.lines, { ai: 3, human: 1, mixed: 0, unknown: 0 });
  assert.equal(report.files, [{ path: 'src/hello.ts', lines: { ai: 3, human: 1, mixed: 0, unknown: 0 } }]);
  const [conversation] = report.conversations;
  assert.equal(
    { ...conversation, usage: undefined },
    {
      agent: 'codex',
      model_id: CODEX_MODEL_ID,
      url: CODEX.conversation_url,
      summary: null,
      lines: 3,
      usage: undefined,
    },
  );
  // This history's traces were written without the agent's transcript: its tokens are missing, never 0.
  assert.is(conversation.usage.usage, 'missing');
  assert.is(conversation.usage.cost_usd, null);
  assert.equal(report.cost.cost_usd, null);
  assert.match(report.cost.prices, /^genai-prices \d+\.\d+\.\d+$/);
  assert.equal(report.fate, {
    added: 3,
    alive: 3,
    deleted: { person: 0, other_agent: 0, same_conversation: 0, unknown: 0 },
    rework: 0,
    to: 'main',
  });
  const plain = JSON.parse((await tracer(h, ['show', '--json', '--no-cost'])).stdout);
  assert.is(plain.conversations[0].usage, null, '--no-cost reads no transcript');
  assert.is(plain.cost, null);
  assert.equal(report.link, { session_ids: [CODEX_SESSION], rewritten_from: h.codexBeforeAmend });

  const text = await tracer(h, ['show', h.claude]);
  assert.match(text.stdout, new RegExp(`^commit ${h.claude} \\(ledger [0-9a-f]{12}\\)\\n`));
  assert.match(text.stdout, /3 lines added: AI 3 \(100%\) · human 0 · mixed 0 · unknown 0\n█{20}\n/);
  assert.match(text.stdout, new RegExp(`claude-code ${CLAUDE_MODEL_ID}: 3 lines  ${escape(CLAUDE.conversation_url)}`));
});

test('show: a pure rename adds no lines; a commit from before tracer is unknown', async () => {
  const h = await history();
  const rename = JSON.parse((await tracer(h, ['show', h.rename, '--json'])).stdout);
  assert.equal(rename.lines, { ai: 0, human: 0, mixed: 0, unknown: 0 });
  assert.equal(rename.files, []);
  assert.ok(rename.ledger_sha, 'the rename has a ledger, with nothing in it');
  assert.equal(ledgerRecordOf(ledgerOf(h, h.rename))!.files, [], 'the ledger writer detects the rename: no lines counted again');
  const pre = JSON.parse((await tracer(h, ['show', h.pre, '--json'])).stdout);
  assert.is(pre.ledger_sha, null);
  assert.equal(pre.lines, { ai: 0, human: 0, mixed: 0, unknown: PRE_TRACER.length });
});

test('stats: the whole history adds up to what was written, per agent and per model', async () => {
  const h = await history();
  const result = await tracer(h, ['stats', '--json']);
  assert.is(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout), {
    range: 'HEAD',
    commits: 6,
    commits_with_ledger: 5,
    lines: { ai: 8, human: 4, mixed: 0, unknown: 2 },
    ai_share: Math.round((8 / 14) * 10_000) / 10_000,
    by_agent: { 'claude-code': 3, codex: 3, cursor: 2 },
    by_model: { [CLAUDE_MODEL_ID]: 3, [CODEX_MODEL_ID]: 3, [CURSOR_MODEL_ID]: 2 },
  });
});

test('stats: a range, per file and as Markdown', async () => {
  const h = await history();
  const byFile = JSON.parse((await tracer(h, ['stats', `${h.person}..HEAD`, '--by', 'file', '--json'])).stdout);
  assert.is(byFile.commits, 3, 'cursor, the rename and the amended codex commit');
  assert.equal(byFile.by_file, {
    'lib/util.py': { ai: 2, human: 0, mixed: 0, unknown: 0 },
    'src/hello.ts': { ai: 3, human: 1, mixed: 0, unknown: 0 },
  });
  const markdown = await tracer(h, ['stats', `${h.person}..HEAD`, '--markdown']);
  assert.is(markdown.code, 0, markdown.stderr);
  assert.match(markdown.stdout, /\| AI agent \| 5 \| 83% \|/);
  assert.match(markdown.stdout, /\| Agent \| AI lines \| Share \|\n\|---\|---:\|---:\|\n\| codex \| 3 \| 50% \|\n\| cursor \| 2 \| 33% \|/);
});

test('stats: the default range is the branch since it left the default branch', async () => {
  const h = await history();
  gitIn(h.repo, ['checkout', '-q', '-b', 'feature'], { home: h.home });
  try {
    write(h.repo, 'notes.md', ['a note', 'another']);
    gitIn(h.repo, ['add', '-A'], { home: h.home });
    gitIn(h.repo, ['commit', '-q', '-m', 'notes by hand'], { home: h.home });
    const report = JSON.parse((await tracer(h, ['stats', '--json'])).stdout);
    assert.is(report.range, 'main..HEAD');
    assert.is(report.commits, 1);
    assert.equal(report.lines, { ai: 0, human: 2, mixed: 0, unknown: 0 });
  } finally {
    gitIn(h.repo, ['checkout', '-q', 'main'], { home: h.home });
  }
});

test('bad input: one line with a stable code and a non-zero exit', async () => {
  const h = await history();
  write(h.repo, 'untracked.txt', ['x']);
  writeFileSync(join(h.repo, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x0a, 0x00, 0x0a]));
  gitIn(h.repo, ['add', 'image.bin'], { home: h.home });
  gitIn(h.repo, ['commit', '-q', '-m', 'binary'], { home: h.home });
  write(h.repo, 'staged.txt', ['only staged']);
  gitIn(h.repo, ['add', 'staged.txt'], { home: h.home });
  const cases: Array<[string[], string]> = [
    [['blame', 'untracked.txt'], 'path_not_tracked'],
    [['blame', 'missing.txt'], 'path_not_tracked'],
    [['blame', 'src/hello.ts', '--rev', 'no-such-branch'], 'unknown_revision'],
    [['blame', 'src/hello.ts', '--rev', h.pre], 'path_not_tracked'],
    [['blame', 'src/hello.ts', '--line', '50-60'], 'line_out_of_range'],
    [['blame', 'src/hello.ts', '--line', 'x-y'], 'invalid_usage'],
    [['blame', 'image.bin'], 'binary_file'],
    [['blame', 'staged.txt'], 'no_history'],
    [['show', 'no-such-commit'], 'unknown_revision'],
    [['stats', 'nope..HEAD'], 'unknown_range'],
    [['stats', '--by', 'colour'], 'invalid_usage'],
  ];
  try {
    for (const [args, code] of cases) {
      const result = await tracer(h, args);
      assert.is.not(result.code, 0, `tracer ${args.join(' ')} should fail`);
      assert.is(result.stdout, '', args.join(' '));
      const lines = result.stderr.trimEnd().split('\n');
      assert.is(lines.length, 1, `${args.join(' ')}: ${result.stderr}`);
      assert.match(lines[0]!, new RegExp(`^tracer: .*\\(${code}\\)$`), args.join(' '));
    }
  } finally {
    gitIn(h.repo, ['rm', '-q', '--cached', 'staged.txt'], { home: h.home });
  }
});

test('a repository with no commit yet: no_history from all three', async () => {
  const m = machine();
  assert.is((await tracer(m, ['init', '--agents', 'none'])).code, 0);
  write(m.repo, 'a.txt', ['not committed']);
  for (const args of [['blame', 'a.txt'], ['show'], ['stats']]) {
    const result = await tracer(m, args);
    assert.is(result.code, 2, args.join(' '));
    assert.match(result.stderr, /^tracer: .*\(no_history\)\n$/, args.join(' '));
  }
});

test('nothing is written but the caches (cache/): not the project folder, not the repository', async () => {
  const h = await history();
  const before = snapshot([h.dir, join(h.repo, '.git')]);
  for (const args of [
    ['blame', 'src/hello.ts'],
    ['blame', 'app.ts', '--json'],
    ['show'],
    ['show', h.pre, '--json'],
    ['stats'],
    ['stats', '--markdown', '--by', 'author'],
  ]) {
    const result = await tracer(h, args);
    assert.is(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  }
  assert.equal(snapshot([h.dir, join(h.repo, '.git')]), before);
});

test('commit_summary: the post-commit hook prints one bar on stderr, and only when asked', async () => {
  const h = await history();
  write(h.repo, 'summary.txt', ['one', 'two']);
  gitIn(h.repo, ['add', '-A'], { home: h.home });
  const quiet = gitCommit(h, 'no summary');
  assert.not.match(quiet, /tracer:/);
  const set = await tracer(h, ['config', 'set', 'commit_summary', 'true']);
  assert.is(set.code, 0, set.stderr);
  write(h.repo, 'summary.txt', ['one', 'two', 'three']);
  gitIn(h.repo, ['add', '-A'], { home: h.home });
  const loud = gitCommit(h, 'with summary');
  const head = gitIn(h.repo, ['rev-parse', 'HEAD']);
  assert.equal(
    loud.split('\n').filter((line) => line.startsWith('tracer:')),
    [`tracer: ${head.slice(0, 8)} ${'░'.repeat(20)} AI 0% · human 100% of 1 line`],
  );
  await tracer(h, ['config', 'unset', 'commit_summary']);
});

/** A commit through the installed hooks, returning git's stderr, where the post-commit hook's bar goes. */
function gitCommit(h: History, message: string): string {
  const result = spawnSync('git', ['commit', '-q', '-m', message], {
    cwd: h.repo,
    encoding: 'utf8',
    env: {
      ...cleanEnv(),
      TRACER_HOME: h.home,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });
  assert.is(result.status, 0, result.stderr);
  // git's hooks fold in the background: what follows reads tracer's files, as a tracer command would after folding first.
  settleSpool(h.home);
  return result.stderr;
}

function snapshot(roots: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path);
      // Figures derived from the data, kept only for speed (src/cost/): the data itself is what must not change.
      if (stat.isDirectory() && name === 'cache' && dir.includes(`${join('home', 'projects')}`)) continue;
      if (stat.isDirectory()) walk(path);
      else out[path] = `${stat.size}:${stat.mtimeMs}`;
    }
  };
  for (const root of roots) walk(root);
  return out;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test.run();
