import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * How installed hooks start tracer: the absolute path of the node that runs this
 * install plus the absolute path of its bin/tracer.js, not a bare `tracer` on PATH.
 * Agents started from a desktop launcher (Cursor, Claude's app) do not inherit the
 * shell's PATH, and node managed by nvm/fnm is often missing from it, so a bare
 * name would silently record nothing. The price: after moving tracer or changing
 * node, run `tracer init` again; it updates its own entries in place. The git
 * hooks also fall back to `tracer` on PATH when the absolute paths are gone.
 */
export interface TracerInvocation {
  node: string;
  script: string;
}

export function currentInvocation(): TracerInvocation {
  const script = fileURLToPath(new URL('../../../bin/tracer.js', import.meta.url));
  return { node: realpathOr(process.execPath), script: realpathOr(script) };
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** POSIX shell quoting; plain paths stay readable. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line an agent runs for one of its events. */
export function agentHookCommand(invocation: TracerInvocation, agent: string, event: string): string {
  return `${shellQuote(invocation.node)} ${shellQuote(invocation.script)} hook ${agent} ${event}`;
}

/**
 * Recognizes a command tracer installed, whatever path it was written with (an
 * older install, another machine's checkout, or a bare `tracer`), so re-running
 * init updates it in place and uninstall finds it.
 */
const OUR_COMMAND = /(?:^|[\s'"/])tracer(?:\.js)?['"]?\s+hook\s+([a-z-]+)\s+([A-Za-z]+)\s*$/;

export function parseAgentHookCommand(command: unknown): { agent: string; event: string } | undefined {
  if (typeof command !== 'string') return undefined;
  const match = OUR_COMMAND.exec(command);
  return match ? { agent: match[1]!, event: match[2]! } : undefined;
}

/**
 * Whether an installed command already runs what `wanted` would: the same agent
 * and event, and a node and a script that are the same files (a symlinked or
 * differently quoted path names the same program). Codex asks the user to trust
 * each hook command again once its text changes, so init leaves such a command
 * as it is.
 */
export function sameHookCommand(installed: unknown, wanted: string): boolean {
  if (installed === wanted) return true;
  if (typeof installed !== 'string') return false;
  const a = parseAgentHookCommand(installed);
  const b = parseAgentHookCommand(wanted);
  if (!a || !b || a.agent !== b.agent || a.event !== b.event) return false;
  const [nodeA, scriptA] = programWords(installed);
  const [nodeB, scriptB] = programWords(wanted);
  if (nodeA === undefined || scriptA === undefined || nodeB === undefined || scriptB === undefined) return false;
  return realpathOr(nodeA) === realpathOr(nodeB) && realpathOr(scriptA) === realpathOr(scriptB);
}

/** The first two words of a command written by agentHookCommand, unquoted. */
function programWords(command: string): string[] {
  const words: string[] = [];
  const word = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (let match = word.exec(command); match && words.length < 2; match = word.exec(command)) {
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!);
  }
  return words;
}
