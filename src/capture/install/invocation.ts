import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT, TRACER_BIN } from '../../core/package-root.js';

/**
 * How installed hooks start tracer: the absolute path of the node that runs this
 * install plus the absolute path of its bin/tracer.js, not a bare `tracer` on PATH.
 * Agents started from a desktop launcher (Cursor, Claude's app) do not inherit the
 * shell's PATH, and node managed by nvm/fnm is often missing from it, so a bare
 * name would silently record nothing. The price: after moving tracer or changing
 * node, run `tracer init` again; it updates its own entries in place. The git
 * hooks also fall back to `tracer` on PATH when the absolute paths are gone.
 * A copy installed by install.sh has no such price: hooks name its launcher,
 * `$TRACER_HOME/bin/tracer`, which stays put across upgrades and records its node.
 */
export type TracerInvocation = { node: string; script: string } | { launcher: string };

export function currentInvocation(): TracerInvocation {
  const launcher = installedLauncher();
  if (launcher !== undefined) return { launcher };
  return { node: realpathOr(process.execPath), script: realpathOr(TRACER_BIN) };
}

/**
 * The launcher of the install.sh copy this program runs from: install.sh writes
 * installed.json next to the copy's package.json. Installs from npm or a clone
 * have none.
 */
function installedLauncher(): string | undefined {
  let record: unknown;
  try {
    record = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'installed.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const launcher = (record as { launcher?: unknown } | null)?.launcher;
  return typeof launcher === 'string' && launcher.startsWith('/') && existsSync(launcher) ? launcher : undefined;
}

/**
 * How a sh script (the git hooks) names tracer: variable lines, the test that
 * the program is still there, and the words that run it.
 */
export function shellProgram(invocation: TracerInvocation): { assign: string; present: string; run: string } {
  if ('launcher' in invocation)
    return {
      assign: `tracer_launcher=${shellQuote(invocation.launcher)}`,
      present: '[ -x "$tracer_launcher" ]',
      run: '"$tracer_launcher"',
    };
  return {
    assign: `tracer_node=${shellQuote(invocation.node)}\ntracer_script=${shellQuote(invocation.script)}`,
    present: '[ -x "$tracer_node" ] && [ -f "$tracer_script" ]',
    run: '"$tracer_node" "$tracer_script"',
  };
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

/**
 * The command line an agent runs for one of its events. The agent waits for it
 * on every tool use, so it is bin/tracer-hook.sh, which spools the payload
 * without starting node: run by /bin/sh (no execute bit to lose), told the
 * node and the bin/tracer.js to start for the fold (or in its stead, for what
 * it cannot spool). install.sh's launcher hands `hook` to that same script itself.
 */
export function agentHookCommand(invocation: TracerInvocation, agent: string, event: string): string {
  const program =
    'launcher' in invocation
      ? shellQuote(invocation.launcher)
      : `/bin/sh ${shellQuote(join(dirname(invocation.script), HOOK_SCRIPT))} ${shellQuote(invocation.node)} ${shellQuote(invocation.script)}`;
  return `${program} hook ${agent} ${event}`;
}

const HOOK_SCRIPT = 'tracer-hook.sh';

/**
 * Recognizes a command tracer installed, whatever path it was written with (an
 * older install, another machine's checkout, or a bare `tracer`), so re-running
 * init updates it in place and uninstall finds it.
 */
const OUR_COMMAND = /(?:^|[\s'"/])tracer(?:\.js)?['"]?\s+hook\s+([a-z0-9-]+)\s+([A-Za-z][A-Za-z0-9_.]*)\s*$/;

export function parseAgentHookCommand(command: unknown): { agent: string; event: string } | undefined {
  if (typeof command !== 'string') return undefined;
  const match = OUR_COMMAND.exec(command);
  return match ? { agent: match[1]!, event: match[2]! } : undefined;
}

/**
 * Whether an installed command already runs what `wanted` would: the same agent
 * and event, and a node and a script that are the same files (a symlinked or
 * differently quoted path names the same program; for a launcher, the second
 * word is `hook` on both sides). Codex asks the user to trust
 * each hook command again once its text changes, so init leaves such a command
 * as it is.
 */
export function sameHookCommand(installed: unknown, wanted: string): boolean {
  if (installed === wanted) return true;
  if (typeof installed !== 'string') return false;
  const a = parseAgentHookCommand(installed);
  const b = parseAgentHookCommand(wanted);
  if (!a || !b || a.agent !== b.agent || a.event !== b.event) return false;
  const programA = programWords(installed);
  const programB = programWords(wanted);
  // The hook script is the one next to bin/tracer.js, so the node and script words decide; the form must be the same.
  const same = (a: string, b: string) =>
    (a.endsWith(`/${HOOK_SCRIPT}`) && b.endsWith(`/${HOOK_SCRIPT}`)) || realpathOr(a) === realpathOr(b);
  return programA.length === programB.length && programA.every((word, index) => same(word, programB[index]!));
}

/** The words of a command written by agentHookCommand before `hook`, unquoted: sh, the hook script, node and bin/tracer.js; or a launcher (or, written by an older tracer, node and bin/tracer.js). */
function programWords(command: string): string[] {
  const words: string[] = [];
  const word = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (let match = word.exec(command); match && match[0] !== 'hook'; match = word.exec(command)) {
    words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!);
  }
  return words;
}
