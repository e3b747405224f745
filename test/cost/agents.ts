// Agent sessions through the real hooks, for the cost tests: the command
// `tracer init` installed for an agent's event, run through the shell as the
// agent runs it, with a real transcript of that agent; commits made with the
// installed git hooks.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { cleanEnv, settleSpool, tempDir } from '../helpers/cli.js';
import { spoolFolded } from '../helpers/spool.js';
import { gitIn } from '../capture/ledger-helpers.js';

const AGENTS = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));

export function env(home: string, author = 'Alex'): NodeJS.ProcessEnv {
  return {
    ...cleanEnv(),
    TRACER_HOME: home,
    GIT_AUTHOR_NAME: author,
    GIT_AUTHOR_EMAIL: `${author.toLowerCase()}@example.com`,
    GIT_COMMITTER_NAME: author,
    GIT_COMMITTER_EMAIL: `${author.toLowerCase()}@example.com`,
  };
}

export function commit(repo: string, home: string, message: string, author?: string): string {
  for (const args of [
    ['add', '-A'],
    ['commit', '-q', '-m', message],
  ]) {
    const result = spawnSync('git', args, { cwd: repo, env: env(home, author), encoding: 'utf8' });
    assert.is(result.status, 0, result.stderr);
  }
  // git's hooks fold in the background: what follows reads tracer's files, as a tracer command would after folding first.
  settleSpool(home);
  return gitIn(repo, ['rev-parse', 'HEAD']);
}

/** The command `tracer init` installed for the agent's event, run through the shell as the agent runs it. */
export async function agentHook(
  repo: string,
  home: string,
  agent: 'claude-code' | 'codex',
  event: string,
  payload: unknown,
): Promise<void> {
  const file = agent === 'claude-code' ? '.claude/settings.json' : '.codex/hooks.json';
  const settings = JSON.parse(readFileSync(join(repo, file), 'utf8'));
  const command = (settings.hooks[event] as Array<{ hooks: Array<{ command: string }> }>)
    .flatMap((entry) => entry.hooks)
    .find((hook) => hook.command.endsWith(` hook ${agent} ${event}`))?.command;
  assert.ok(command, `tracer init installed ${agent} ${event}`);
  const result = spawnSync('sh', ['-c', command!], { cwd: repo, input: JSON.stringify(payload), encoding: 'utf8', env: env(home) });
  assert.is(result.status, 0, result.stderr);
  assert.is(result.stdout, '');
  await spoolFolded(home);
}

export function transcriptCopy(file: string): string {
  const dir = tempDir('tracer-agent-transcript-');
  const path = join(dir, 'transcript.jsonl');
  copyFileSync(join(AGENTS, file), path);
  return path;
}
