import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, git, runMain, sandbox, tempDir } from '../helpers/cli.js';
import { assertOk, assertOneLineError } from '../cli/expect.js';

test.after(cleanup);

const AGENT_FILES = ['.claude/settings.json', '.cursor/hooks.json', '.codex/hooks.json'];
const read = (path: string) => readFileSync(path, 'utf8');
const json = (path: string) => JSON.parse(read(path));

/** Every command in a settings file, whatever the agent's layout. */
function commands(settings: any): string[] {
  return Object.values(settings.hooks ?? {}).flatMap((list: any) =>
    list.flatMap((item: any) => (item.hooks ? item.hooks.map((h: any) => h.command) : [item.command])),
  );
}

function snapshot(repo: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of [...AGENT_FILES, '.git/hooks/post-commit', '.git/hooks/post-rewrite'])
    if (existsSync(join(repo, path))) files[path] = read(join(repo, path));
  return files;
}

test('a fresh init hooks the three agents in the repository, each event once, and a second run changes no byte', async () => {
  const { repo, run } = sandbox();
  const first = await run(['init']);
  assertOk(first);
  assert.match(first.stdout, /^Initialized tracer project /);
  assert.match(first.stdout, /claude-code\s+\.claude\/settings\.json\s+added/);

  const claude = json(join(repo, '.claude/settings.json'));
  assert.equal(Object.keys(claude.hooks), ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'SessionEnd']);
  assert.is(claude.hooks.PostToolUse[0].matcher, 'Write|Edit|MultiEdit|NotebookEdit');
  assert.equal(claude.hooks.Stop[0].hooks[0].type, 'command');
  assert.ok(claude.hooks.Stop[0].hooks[0].command.endsWith(' hook claude-code Stop'));

  const cursor = json(join(repo, '.cursor/hooks.json'));
  assert.is(cursor.version, 1);
  assert.equal(Object.keys(cursor.hooks), [
    'sessionStart',
    'beforeSubmitPrompt',
    'afterFileEdit',
    'afterAgentResponse',
    'stop',
    'sessionEnd',
  ]);
  assert.ok(cursor.hooks.afterFileEdit[0].command.endsWith(' hook cursor afterFileEdit'));

  const codex = json(join(repo, '.codex/hooks.json'));
  assert.ok(codex.hooks.Stop[0].hooks[0].command.endsWith(' hook codex Stop'));
  assert.equal(Object.keys(codex.hooks), ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Stop', 'SessionEnd']);
  assert.is(codex.hooks.PostToolUse[0].matcher, 'apply_patch|Bash', 'apply_patch, also when run through the shell tool');
  assert.ok(codex.hooks.PostToolUse[0].hooks[0].command.endsWith(' hook codex PostToolUse'));
  for (const file of AGENT_FILES) assert.is(statSync(join(repo, file)).mode & 0o777, 0o644);

  const before = snapshot(repo);
  const again = await run(['init']);
  assertOk(again);
  assert.match(again.stdout, /^Already initialized/);
  assert.not.match(again.stdout, /added|updated|chained/);
  assert.equal(snapshot(repo), before);
});

test('the installed command finds this tracer by absolute path, without PATH, and the hook it runs exits 0 silently', async () => {
  const { home, repo, run } = sandbox();
  assertOk(await run(['init', '--agents', 'claude-code', '--no-git-hooks']));
  const command: string = json(join(repo, '.claude/settings.json')).hooks.UserPromptSubmit[0].hooks[0].command;
  assert.ok(command.includes(BIN.replace(/.*\/bin\//, 'bin/')), command);

  const env = { ...cleanEnv(), PATH: '/nonexistent', TRACER_HOME: home };
  const version = execFileSync('/bin/sh', ['-c', command.replace(/ hook claude-code UserPromptSubmit$/, ' --version')], {
    cwd: repo,
    env,
    encoding: 'utf8',
  });
  assert.match(version, /^\d+\.\d+\.\d+/);

  const payload = JSON.stringify({
    session_id: 'sess-1',
    transcript_path: join(repo, 'none.jsonl'),
    cwd: repo,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'hello',
  });
  const stdout = execFileSync('/bin/sh', ['-c', command], { cwd: repo, env, input: payload, encoding: 'utf8' });
  assert.is(stdout, '', 'an agent parses hook stdout: nothing may be printed');
});

test('existing user settings keep every entry, key and order; uninstall brings back the exact bytes', async () => {
  const { repo, run } = sandbox();
  mkdirSync(join(repo, '.claude'));
  mkdirSync(join(repo, '.cursor'));
  // Hand-written layouts JSON.stringify would not reproduce: 4 spaces, one-line arrays, no final newline.
  const claudeText = `{
    "permissions": { "allow": ["Bash(npm test)"] },
    "hooks": {
        "PostToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./scripts/lint.sh" } ] }
        ]
    },
    "model": "opus"
}`;
  const cursorText =
    '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [\n      {\n        "command": "./format.sh"\n      }\n    ]\n  }\n}\n';
  writeFileSync(join(repo, '.claude/settings.json'), claudeText);
  writeFileSync(join(repo, '.cursor/hooks.json'), cursorText);

  assertOk(await run(['init']));
  const claude = json(join(repo, '.claude/settings.json'));
  assert.equal(Object.keys(claude), ['permissions', 'hooks', 'model']);
  assert.equal(claude.permissions, { allow: ['Bash(npm test)'] });
  assert.equal(claude.hooks.PostToolUse[0], { matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/lint.sh' }] });
  assert.is(claude.hooks.PostToolUse.length, 2);
  assert.match(read(join(repo, '.claude/settings.json')), /\n {4}"permissions"/, 'the user indentation is kept');
  const cursor = json(join(repo, '.cursor/hooks.json'));
  assert.equal(cursor.hooks.afterFileEdit[0], { command: './format.sh' });
  assert.is(cursor.hooks.afterFileEdit.length, 2);
  assert.is(
    read(join(repo, '.cursor/hooks.json')).startsWith(
      '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [\n      {\n        "command": "./format.sh"\n      },',
    ),
    true,
  );

  const installed = snapshot(repo);
  assertOk(await run(['init']));
  assert.equal(snapshot(repo), installed, 'second run: byte-identical');

  const removed = await run(['init', '--uninstall']);
  assertOk(removed);
  assert.is(read(join(repo, '.claude/settings.json')), claudeText);
  assert.is(read(join(repo, '.cursor/hooks.json')), cursorText);
  assert.not.ok(existsSync(join(repo, '.codex')), 'a folder init created for its file goes with it');
  assert.not.ok(existsSync(join(repo, '.git/hooks/post-commit')));
  assert.is(
    git(repo, 'status', '--porcelain', '--untracked-files=all'),
    '?? .claude/settings.json\n?? .cursor/hooks.json'.replace(/\n/g, '\n'),
  );
  assert.ok(existsSync(join(repo, '.git/tracer-id')), 'the project anchor stays');

  const twice = await run(['init', '--uninstall']);
  assertOk(twice);
  assert.is(read(join(repo, '.claude/settings.json')), claudeText);
});

test('uninstall after the user changed the file since keeps their change and drops only our entries', async () => {
  const { repo, run } = sandbox();
  assertOk(await run(['init', '--agents', 'claude-code', '--no-git-hooks']));
  const path = join(repo, '.claude/settings.json');
  const settings = json(path);
  settings.hooks.Stop.push({ hooks: [{ type: 'command', command: 'say done' }] });
  settings.env = { FOO: '1' };
  writeFileSync(path, `${JSON.stringify(settings, null, 2)}\n`);

  assertOk(await run(['init', '--uninstall', '--agents', 'claude-code']));
  assert.equal(json(path), { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] }, env: { FOO: '1' } });
});

test('an entry from another install path is updated in place, never duplicated', async () => {
  const { repo, run } = sandbox();
  mkdirSync(join(repo, '.claude'));
  const path = join(repo, '.claude/settings.json');
  writeFileSync(
    path,
    `${JSON.stringify(
      {
        hooks: {
          Stop: [
            {
              hooks: [
                { type: 'command', command: 'echo first' },
                { type: 'command', command: '/old/node /old/tracer/bin/tracer.js hook claude-code Stop' },
              ],
            },
          ],
          PreToolUse: [{ hooks: [{ type: 'command', command: 'tracer hook claude-code PreToolUse' }] }],
        },
      },
      null,
      2,
    )}\n`,
  );
  const result = await run(['init', '--agents', 'claude-code', '--no-git-hooks']);
  assertOk(result);
  assert.match(result.stdout, /\.claude\/settings\.json\s+updated/);
  const settings = json(path);
  assert.is(settings.hooks.Stop.length, 1);
  assert.is(settings.hooks.Stop[0].hooks[0].command, 'echo first');
  assert.ok(settings.hooks.Stop[0].hooks[1].command.includes(BIN.replace(/.*\/bin\//, 'bin/')));
  assert.is(settings.hooks.PreToolUse, undefined, 'an event this tracer no longer hooks loses our entry');
  assert.is(commands(settings).filter((command) => / hook claude-code Stop$/.test(command)).length, 1);
});

test('a settings file that is not JSON stops init before anything is written', async () => {
  const { repo, run } = sandbox();
  mkdirSync(join(repo, '.cursor'));
  writeFileSync(join(repo, '.cursor/hooks.json'), '{ "version": 1, ');
  const result = await run(['init']);
  assertOneLineError(result, 'agent_config_invalid', 3);
  assert.is(read(join(repo, '.cursor/hooks.json')), '{ "version": 1, ');
  assert.not.ok(existsSync(join(repo, '.claude')));
  assert.not.ok(existsSync(join(repo, '.git/hooks/post-commit')));
  assert.not.ok(existsSync(join(repo, '.git/tracer-id')));
});

test('--agents picks the agents; an unknown name is a usage error', async () => {
  const { repo, run } = sandbox();
  assertOk(await run(['init', '--agents', 'claude-code,cursor']));
  assert.ok(existsSync(join(repo, '.claude/settings.json')));
  assert.ok(existsSync(join(repo, '.cursor/hooks.json')));
  assert.not.ok(existsSync(join(repo, '.codex')));
  assertOneLineError(await run(['init', '--agents', 'claude-code,vim']), 'unknown_agent', 2);

  const { repo: bare, run: runBare } = sandbox();
  assertOk(await runBare(['init', '--agents', 'none', '--no-git-hooks']));
  assert.is(git(bare, 'status', '--porcelain', '--untracked-files=all'), '', 'with no agents, nothing lands in the working tree');
});

test('--global writes the user settings under $HOME, not the repository, and works outside a repository', async () => {
  const { home, repo, run } = sandbox();
  const userHome = tempDir('tracer-user-');
  const env = { HOME: userHome, CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined };
  const result = await run(['init', '--global'], { env });
  assertOk(result);
  for (const file of ['.claude/settings.json', '.cursor/hooks.json', '.codex/hooks.json'])
    assert.ok(existsSync(join(userHome, file)), file);
  assert.ok(commands(json(join(userHome, '.claude/settings.json'))).some((command) => command.endsWith(' hook claude-code Stop')));
  for (const file of AGENT_FILES) assert.not.ok(existsSync(join(repo, file)));
  assert.ok(existsSync(join(repo, '.git/hooks/post-commit')), 'inside a repository the git hooks still go in');

  const outside = tempDir('tracer-plain-');
  const elsewhere = await runMain(['init', '--global', '--agents', 'cursor'], { cwd: outside, home, env });
  assertOk(elsewhere);
  assert.match(elsewhere.stdout, /unchanged/);
  assert.equal(readdirSync(outside), []);

  assertOk(await run(['init', '--global', '--uninstall'], { env }));
  assert.equal(readdirSync(userHome), [], 'the folders init created under $HOME are gone again');
  assertOneLineError(await runMain(['init'], { cwd: outside, home, env }), 'not_a_git_repository');
});

test('end to end: the installed agent hook records an edit and the installed git hook links the commit to it', async () => {
  const { home, repo, run } = sandbox();
  assertOk(await run(['init', '--agents', 'claude-code']));
  const command: string = json(join(repo, '.claude/settings.json')).hooks.PostToolUse[0].hooks[0].command;
  const env = { ...cleanEnv(), PATH: '/usr/bin:/bin', TRACER_HOME: home };
  const file = join(repo, 'hello.ts');
  const content = 'export const hello = "from the agent";\n';
  writeFileSync(file, content);
  const payload = {
    session_id: 'e2e-session',
    transcript_path: join(repo, 'no-transcript.jsonl'),
    cwd: repo,
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: file, content },
    tool_response: { filePath: file, success: true },
  };
  assert.is(execFileSync('/bin/sh', ['-c', command], { cwd: repo, env, input: JSON.stringify(payload), encoding: 'utf8' }), '');

  execFileSync('git', ['add', 'hello.ts'], { cwd: repo, env });
  const gitEnv = {
    ...env,
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 't@example.com',
  };
  assert.is(execFileSync('git', ['commit', '-q', '-m', 'agent wrote hello'], { cwd: repo, env: gitEnv, encoding: 'utf8' }), '');
  // The hook spooled the commit; the next tracer command folds the spool first (the edit, then the commit).
  const shown = await runMain(['show'], { cwd: repo, home });
  assert.is(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /AI 1 /, 'show reads the ledger the fold made');
  const dataDir = readdirSync(join(home, 'projects')).map((name) => join(home, 'projects', name))[0]!;
  const links = read(join(dataDir, 'commit-links.jsonl'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.is(links.length, 1);
  assert.is(links[0].commit, git(repo, 'rev-parse', 'HEAD'));
  assert.ok(JSON.stringify(links[0]).includes('e2e-session'), 'the link names the session the agent hook recorded');
});

test.run();
