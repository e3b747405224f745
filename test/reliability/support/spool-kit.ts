// What the background-work tests share: a project with an agent's hooks and
// git's installed, events spooled as the installed hook command spools them,
// a process that holds the fold's lock until killed, and readers of what the
// folds made.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, sandbox } from '../../helpers/cli.js';
import { payload, projectDir, readJsonl } from '../../capture/hook-fixtures.js';
export { killed, lockHolder } from '../../store/lock-holder.js';

export const HOOK_SCRIPT = fileURLToPath(new URL('../../../bin/tracer-hook.sh', import.meta.url));
/** A `node` that starts nothing: entries stay in the spool until a command folds them. */
export const NO_FOLD = '/bin/true';

export type Box = ReturnType<typeof sandbox>;

/** A project with claude-code's hooks and git's installed, as `tracer init` leaves it. */
export async function initialized(): Promise<Box> {
  const box = sandbox();
  const result = await box.run(['init', '--agents', 'claude-code']);
  assert.is(result.code, 0, result.stderr);
  return box;
}

/** Runs bin/tracer-hook.sh as the installed command does; `node` NO_FOLD leaves the entry for a command to fold. */
export function spoolPrompt(box: Box, session: string, node = NO_FOLD, prompt = 'go'): void {
  const input = JSON.stringify({
    ...JSON.parse(payload('claude-code', 'UserPromptSubmit', { repo: box.repo })),
    session_id: session,
    prompt,
  });
  const result = spawnSync('/bin/sh', [HOOK_SCRIPT, node, BIN, 'hook', 'claude-code', 'UserPromptSubmit'], {
    cwd: box.repo,
    input,
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: box.home },
  });
  assert.is(result.status, 0, result.stderr);
}

/** An agent's Write of `path` (relative to the repository) with `lines`, written to disk and spooled. */
export function spoolWrite(box: Box, session: string, path: string, lines: readonly string[], node = NO_FOLD): void {
  const write = JSON.parse(payload('claude-code', 'PostToolUse.Write', { repo: box.repo }));
  const file = join(box.repo, path);
  const content = `${lines.join('\n')}\n`;
  write.session_id = session;
  write.tool_input = { ...write.tool_input, file_path: file, content };
  if (write.tool_response) write.tool_response = { ...write.tool_response, filePath: file };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  const result = spawnSync('/bin/sh', [HOOK_SCRIPT, node, BIN, 'hook', 'claude-code', 'PostToolUse'], {
    cwd: box.repo,
    input: JSON.stringify(write),
    encoding: 'utf8',
    env: { ...cleanEnv(), TRACER_HOME: box.home },
  });
  assert.is(result.status, 0, result.stderr);
}

export function spooled(home: string): string[] {
  try {
    return readdirSync(join(home, 'spool')).filter((name) => name.endsWith('.event'));
  } catch {
    return [];
  }
}

export function traces(home: string): Array<Record<string, any>> {
  const path = join(projectDir(home), 'traces.jsonl');
  return existsSync(path) ? readJsonl(path) : [];
}

export function ledgers(home: string): Array<Record<string, any>> {
  const path = join(projectDir(home), 'ledgers.jsonl');
  return existsSync(path) ? readJsonl(path) : [];
}

/** Lock files and take-over guards left anywhere under `home`. */
export function locksLeft(home: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (/\.lock(\.break)?$/.test(entry.name)) found.push(path);
      else if (entry.isDirectory()) walk(path);
    }
  };
  if (existsSync(home)) walk(home);
  return found;
}

export function foldLock(home: string): string {
  return join(home, 'spool', '.fold.lock');
}

export function readText(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}
