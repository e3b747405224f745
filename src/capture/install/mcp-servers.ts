// `tracer init --mcp` (issue 32): registers `tracer mcp` where each agent reads
// its MCP servers, merged next to the user's own servers like the hooks are:
// one entry named `tracer`, a second run changes nothing, `--uninstall` takes
// away that entry and nothing else. JSON files keep the user's layout
// (json-file.ts); Codex's TOML gets one marked block.
//
//   Claude Code  <repo>/.mcp.json                 mcpServers.tracer
//   Cursor       <repo>/.cursor/mcp.json          mcpServers.tracer
//   Gemini CLI   <repo>/.gemini/settings.json     mcpServers.tracer
//   Qwen Code    <repo>/.qwen/settings.json       mcpServers.tracer
//   Kiro         <repo>/.kiro/settings/mcp.json   mcpServers.tracer
//   Codex CLI    ~/.codex/config.toml             [mcp_servers.tracer]  (Codex reads MCP servers only there)
//   Copilot CLI  ~/.copilot/mcp-config.json       mcpServers.tracer     (user-wide only)
//
// The folders init makes for a file (`.cursor/`, `~/.codex/`, …) are recorded in
// install-state.json, as the hooks' are, and `--uninstall` removes them once
// empty; a folder that was there before, or holds anything else, stays.
import { readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ExitCode, TracerError } from '../../core/errors.js';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { errnoCode } from '../../files/index.js';
import { makeDirs, readInstalledFile, recordInstalledFile, removeEmptyDirs } from './install-record.js';
import { currentInvocation, type TracerInvocation } from './invocation.js';
import { readJsonFile, sameJson, serializeLike } from './json-file.js';

export const SERVER_NAME = 'tracer';

export type McpChange = 'added' | 'updated' | 'unchanged' | 'removed' | 'absent';

interface Target {
  agent: string;
  path: string;
  format: 'json' | 'codex-toml';
}

/** Where each agent reads MCP servers; agents not listed get a note instead (init prints it). */
export function mcpTarget(
  agent: string,
  options: { worktree: string | undefined; global: boolean; env: NodeJS.ProcessEnv },
): Target | undefined {
  const home = options.env.HOME ?? homedir();
  const base = options.global ? home : options.worktree;
  switch (agent) {
    case 'codex':
      return { agent, path: join(options.env.CODEX_HOME ?? join(home, '.codex'), 'config.toml'), format: 'codex-toml' };
    case 'copilot':
      return { agent, path: join(options.env.COPILOT_HOME ?? join(home, '.copilot'), 'mcp-config.json'), format: 'json' };
    case 'claude-code':
      // User-wide Claude Code servers live in ~/.claude.json, which the app rewrites: only the project file is written.
      return options.global || !base ? undefined : { agent, path: join(base, '.mcp.json'), format: 'json' };
    case 'cursor':
      return base ? { agent, path: join(base, '.cursor', 'mcp.json'), format: 'json' } : undefined;
    case 'gemini':
      return base ? { agent, path: join(base, '.gemini', 'settings.json'), format: 'json' } : undefined;
    case 'qwen':
      return base ? { agent, path: join(base, '.qwen', 'settings.json'), format: 'json' } : undefined;
    case 'kiro':
      return base ? { agent, path: join(base, '.kiro', 'settings', 'mcp.json'), format: 'json' } : undefined;
    default:
      return undefined;
  }
}

/** The server entry: the absolute node and script (or install.sh's launcher), as the hooks name tracer. */
export function serverEntry(invocation: TracerInvocation = currentInvocation()): { command: string; args: string[] } {
  return 'launcher' in invocation
    ? { command: invocation.launcher, args: ['mcp'] }
    : { command: invocation.node, args: [invocation.script, 'mcp'] };
}

function isOurs(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null) return false;
  const { command, args } = entry as { command?: unknown; args?: unknown };
  return typeof command === 'string' && Array.isArray(args) && args.at(-1) === 'mcp' && /tracer/.test([command, ...args].join(' '));
}

export interface McpPlan {
  target: Target;
  /** Bytes to write, null to delete the file; undefined: unchanged. */
  next: string | null | undefined;
  change: McpChange;
}

/** Reads and merges every file first (a malformed one stops init before anything is written). */
export function planMcp(targets: Target[], remove: boolean): McpPlan[] {
  return targets.map((target) => (target.format === 'json' ? planJson(target, remove) : planToml(target, remove)));
}

function planJson(target: Target, remove: boolean): McpPlan {
  const file = readJsonFile(target.path);
  const servers = file.value.mcpServers;
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers)))
    throw new TracerError(
      'agent_config_invalid',
      `${target.path} has "mcpServers" that is not an object; fix it by hand and run the command again.`,
      {
        exitCode: ExitCode.localState,
      },
    );
  const current = (servers ?? {}) as Record<string, unknown>;
  if (remove) {
    if (!isOurs(current[SERVER_NAME])) return { target, next: undefined, change: 'absent' };
    const { [SERVER_NAME]: _ours, ...rest } = current;
    const { mcpServers: _servers, ...others } = file.value;
    const value = Object.keys(rest).length > 0 ? { ...others, mcpServers: rest } : others;
    return { target, next: Object.keys(value).length === 0 ? null : serializeLike(value, file.text), change: 'removed' };
  }
  const existing = current[SERVER_NAME];
  if (existing !== undefined && !isOurs(existing))
    throw new TracerError(
      'mcp_server_name_taken',
      `${target.path} already has an MCP server named "${SERVER_NAME}" that tracer did not write; rename it, then run tracer init --mcp again.`,
      { exitCode: ExitCode.localState },
    );
  const wanted = serverEntry();
  if (existing !== undefined && sameJson(existing, wanted)) return { target, next: undefined, change: 'unchanged' };
  const value = { ...file.value, mcpServers: { ...current, [SERVER_NAME]: wanted } };
  return { target, next: serializeLike(value, file.text), change: existing === undefined ? 'added' : 'updated' };
}

const BEGIN = '# >>> tracer mcp (written by tracer init --mcp; tracer init --uninstall removes it)';
const END = '# <<< tracer mcp';

function planToml(target: Target, remove: boolean): McpPlan {
  let text = '';
  try {
    text = readFileSync(target.path, 'utf8');
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT')
      throw new TracerError('agent_config_unreadable', `Cannot read ${target.path} (${errnoCode(error)}); check its permissions.`, {
        exitCode: ExitCode.localState,
      });
  }
  const start = text.indexOf(BEGIN);
  const end = start < 0 ? -1 : text.indexOf(END, start);
  const ours = start >= 0 && end > start ? text.slice(start, end + END.length) : undefined;
  // The blank line init put before the block goes with it.
  const before = start >= 0 && text.slice(0, start).endsWith('\n\n') ? text.slice(0, start - 1) : text.slice(0, Math.max(start, 0));
  const without = ours === undefined ? text : `${before}${text.slice(end + END.length).replace(/^\n/, '')}`;
  if (remove) {
    if (ours === undefined) return { target, next: undefined, change: 'absent' };
    return { target, next: without.trim() === '' ? null : without, change: 'removed' };
  }
  if (ours === undefined && /^\s*\[mcp_servers\.(?:tracer|"tracer")\]\s*$/m.test(text))
    throw new TracerError(
      'mcp_server_name_taken',
      `${target.path} already has [mcp_servers.tracer] that tracer did not write; rename it, then run tracer init --mcp again.`,
      { exitCode: ExitCode.localState },
    );
  const entry = serverEntry();
  const block = `${BEGIN}\n[mcp_servers.${SERVER_NAME}]\ncommand = ${tomlString(entry.command)}\nargs = [${entry.args.map(tomlString).join(', ')}]\n${END}`;
  if (ours === block) return { target, next: undefined, change: 'unchanged' };
  const separator = text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  const next = ours !== undefined ? text.replace(ours, () => block) : `${text}${separator}${block}\n`;
  return { target, next, change: ours === undefined ? 'added' : 'updated' };
}

/** A TOML basic string. */
function tomlString(text: string): string {
  return `"${text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    // eslint-disable-next-line no-control-regex -- control characters are what a TOML string must escape
    .replace(/[\u0000-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/**
 * Writes (or deletes) each planned file. `home` is tracer's, where install-state.json
 * records the folders made for a file, under a key of its own: Gemini's hooks
 * and its server share .gemini/settings.json, and the hooks keep that path's record.
 */
export async function applyMcp(plans: McpPlan[], home: string): Promise<void> {
  for (const plan of plans) {
    if (plan.next === undefined) continue;
    const { path } = plan.target;
    const key = `mcp:${path}`;
    if (plan.next === null) {
      rmSync(path, { force: true });
      removeEmptyDirs((await readInstalledFile(home, key))?.created_dirs ?? []);
      await recordInstalledFile(home, key, undefined);
      continue;
    }
    const created = makeDirs(dirname(path));
    if (created.length > 0) await recordInstalledFile(home, key, { original: null, created_dirs: created });
    await writeFileAtomic(path, plan.next, { mode: 0o644, keepExistingMode: true });
  }
}
