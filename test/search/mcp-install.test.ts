import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanEnv, cleanup, sandbox, tempDir } from '../helpers/cli.js';

/**
 * `tracer init --mcp` registers `tracer mcp` where each agent reads MCP
 * servers, next to the user's own servers and settings; a second run changes
 * no byte; the entry it wrote starts a server the SDK's client can talk to;
 * `--uninstall` gives every file back as it was; a server of that name that
 * tracer did not write stops init before anything is written.
 */
test.after(cleanup);

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return text;
}

function setup() {
  const box = sandbox();
  const userHome = tempDir('user-home-');
  const env = { HOME: userHome };
  const files = {
    claude: join(box.repo, '.mcp.json'),
    cursor: join(box.repo, '.cursor', 'mcp.json'),
    gemini: join(box.repo, '.gemini', 'settings.json'),
    codex: join(userHome, '.codex', 'config.toml'),
  };
  const original = {
    claude: write(files.claude, `${JSON.stringify({ mcpServers: { github: { command: 'gh-mcp', args: ['--stdio'] } } }, null, 4)}\n`),
    gemini: write(files.gemini, `${JSON.stringify({ theme: 'dark' }, null, 2)}\n`),
    codex: write(files.codex, 'model = "gpt-5.5"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'),
  };
  return { box, env, files, original };
}

const AGENTS = 'claude-code,cursor,codex,gemini';

test('registered beside the user’s servers; a second run changes nothing; the entry starts a working server; uninstall gives each file back', async () => {
  const { box, env, files, original } = setup();
  const first = await box.run(['init', '--mcp', '--agents', AGENTS], { env });
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /MCP server \(tracer mcp\):/);
  for (const agent of ['claude-code', 'cursor', 'codex', 'gemini'])
    assert.match(first.stdout, new RegExp(`^  ${agent}\\s+\\S+\\s+added$`, 'm'));

  const claude = JSON.parse(readFileSync(files.claude, 'utf8'));
  assert.equal(claude.mcpServers.github, { command: 'gh-mcp', args: ['--stdio'] }, "the user's server stays");
  assert.is(claude.mcpServers.tracer.args.at(-1), 'mcp');
  assert.ok(readFileSync(files.claude, 'utf8').startsWith('{\n    "mcpServers"'), "the user's indentation is kept");
  assert.equal(JSON.parse(readFileSync(files.cursor, 'utf8')).mcpServers.tracer, claude.mcpServers.tracer);
  const gemini = JSON.parse(readFileSync(files.gemini, 'utf8'));
  assert.is(gemini.theme, 'dark');
  assert.ok(gemini.hooks, 'the hooks are there too');
  assert.equal(gemini.mcpServers.tracer, claude.mcpServers.tracer);
  const codex = readFileSync(files.codex, 'utf8');
  assert.ok(codex.startsWith(original.codex), "Codex's own settings first, untouched");
  assert.match(codex, /^\[mcp_servers\.tracer\]\ncommand = "[^"]+"\nargs = \["[^"]+tracer\.js", "mcp"\]$/m);

  const before = Object.values(files).map((path) => readFileSync(path, 'utf8'));
  const again = await box.run(['init', '--mcp', '--agents', AGENTS], { env });
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /^ {2}codex\s+\S+config\.toml\s+unchanged$/m);
  assert.equal(
    Object.values(files).map((path) => readFileSync(path, 'utf8')),
    before,
    'a second run changes no byte',
  );

  // What an agent would start, from the entry init wrote.
  const entry = claude.mcpServers.tracer;
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      cwd: box.repo,
      env: { ...(cleanEnv() as Record<string, string>), TRACER_HOME: box.home },
      stderr: 'pipe',
    }),
  );
  try {
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'why'));
  } finally {
    await client.close();
  }

  const removed = await box.run(['init', '--uninstall', '--agents', AGENTS], { env });
  assert.is(removed.code, 0, removed.stderr);
  assert.is(readFileSync(files.claude, 'utf8'), original.claude);
  assert.is(readFileSync(files.codex, 'utf8'), original.codex);
  assert.is(readFileSync(files.gemini, 'utf8'), original.gemini);
  assert.not.ok(existsSync(files.cursor), 'a file only tracer wrote is gone');
  assert.not.ok(existsSync(dirname(files.cursor)), 'and the folder init made for it');
});

test('uninstall removes the folders init made for the servers, and only those', async () => {
  const box = sandbox();
  const userHome = tempDir('user-home-');
  const env = { HOME: userHome };
  // A folder that was there before (empty) and one that holds the user's own file: both stay.
  mkdirSync(join(userHome, '.copilot'));
  const theirs = write(join(box.repo, '.gemini', 'notes.md'), 'mine\n');
  const installed = await box.run(['init', '--mcp', '--agents', 'cursor,gemini,codex,copilot,kiro'], { env });
  assert.is(installed.code, 0, installed.stderr);
  for (const path of ['.cursor/mcp.json', '.gemini/settings.json', '.kiro/settings/mcp.json'])
    assert.ok(existsSync(join(box.repo, path)), path);
  assert.ok(existsSync(join(userHome, '.codex', 'config.toml')) && existsSync(join(userHome, '.copilot', 'mcp-config.json')));

  const removed = await box.run(['init', '--uninstall'], { env });
  assert.is(removed.code, 0, removed.stderr);
  for (const folder of ['.cursor', '.kiro', '.codex', '.github'])
    assert.not.ok(existsSync(join(box.repo, folder)), `${folder} in the repository is gone`);
  assert.not.ok(existsSync(join(userHome, '.codex')), '~/.codex is gone');
  assert.ok(existsSync(join(userHome, '.copilot')), '~/.copilot was there before: it stays');
  assert.not.ok(existsSync(join(userHome, '.copilot', 'mcp-config.json')));
  assert.is(readFileSync(join(box.repo, '.gemini', 'notes.md'), 'utf8'), theirs, "the user's file stays, and its folder");
  assert.not.ok(existsSync(join(box.repo, '.gemini', 'settings.json')));
});

test("init --uninstall without --agents takes back what any init added, Gemini's hooks and server included", async () => {
  const { box, env, files, original } = setup();
  assert.is((await box.run(['init', '--mcp', '--agents', AGENTS], { env })).code, 0);
  assert.ok(JSON.parse(readFileSync(files.gemini, 'utf8')).hooks, 'gemini hooks installed');
  const removed = await box.run(['init', '--uninstall'], { env });
  assert.is(removed.code, 0, removed.stderr);
  assert.is(readFileSync(files.gemini, 'utf8'), original.gemini, 'hooks and server both gone');
  assert.is(readFileSync(files.claude, 'utf8'), original.claude);
  assert.is(readFileSync(files.codex, 'utf8'), original.codex);
});

test('a server named tracer that tracer did not write stops init before anything is written', async () => {
  const { box, env, files } = setup();
  const theirs = write(files.cursor, `${JSON.stringify({ mcpServers: { tracer: { command: 'someone-else' } } })}\n`);
  const result = await box.run(['init', '--mcp', '--agents', AGENTS], { env });
  assert.is(result.code, 3, result.stderr);
  assert.match(result.stderr, /mcp_server_name_taken/);
  assert.is(readFileSync(files.cursor, 'utf8'), theirs);
  assert.not.ok(JSON.parse(readFileSync(files.claude, 'utf8')).mcpServers.tracer, 'nothing half-installed');
  assert.not.ok(existsSync(join(box.repo, '.claude', 'settings.json')), 'no hooks either');
});

test.run();
