import { readFileSync } from 'node:fs';
import type { Cli } from 'clipanion';
import type { bootKernel } from '../kernel/boot.js';
import { tracerHome } from '../store/home.js';
import type { TracerContext } from './context.js';
import { reportError } from './report.js';
import { TracerError } from '../core/errors.js';
import { isBareTransfer, isGitHookInvocation, isHookInvocation, isSpoolFold } from './fast-paths.js';
import { spoolPending } from '../capture/spool/pending.js';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

export async function main(argv: string[]): Promise<number> {
  const { stdout, stderr, env } = process;
  // Answer --version before loading anything: scripts and agent hooks call it to probe.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Agent hooks run `tracer hook <agent> <event>` on every tool use: no clipanion, no kernel.
  if (isHookInvocation(argv)) {
    const { runHook } = await import('../capture/hook/run-hook.js');
    return runHook(argv[1]!, argv[2]!, { stdin: process.stdin, env, cwd: process.cwd() });
  }
  if (isSpoolFold(argv)) {
    const { runSpoolFold } = await import('../capture/spool/fold-first.js');
    return runSpoolFold(env);
  }
  // Whatever the command, it reads after the agents' spooled events are in traces.jsonl.
  if (spoolPending(tracerHome(env))) await (await import('../capture/spool/fold-first.js')).foldSpoolFirst(env);
  // Git's post-commit, post-rewrite and post-merge hooks run these exact command lines on every commit and pull.
  if (isGitHookInvocation(argv)) {
    const { runGitHookCommand } = await import('../capture/ledger/git-hook-entry.js');
    return runGitHookCommand(argv, { stdin: process.stdin, env, cwd: process.cwd(), stdout, stderr });
  }
  // `push`, `pull` or `sync` alone, as hooks and schedulers run them: their work without clipanion.
  if (isBareTransfer(argv)) return (await import('./bare-entry.js')).bareMain(argv);
  // A plain `blame <path> [options]` runs without clipanion or the kernel (src/attribution/plain-blame.ts).
  if (argv[0] === 'blame') {
    const { runPlainBlame } = await import('../attribution/plain-blame.js');
    const code = await runPlainBlame(argv, { cwd: process.cwd(), env, stdout, stderr });
    if (code !== undefined) return code;
  }
  // Loaded only past the fast paths above, so that they pay for none of it.
  const [{ Builtins, Cli }, coreCommands, { withPluginUsage }] = await Promise.all([
    import('clipanion'),
    import('../commands/index.js').then(({ coreCommandsFor }) => coreCommandsFor(argv)),
    import('./plugin-usage.js'),
  ]);
  let context: TracerContext;
  let cli: Cli<TracerContext>;
  try {
    const kernel = await bootWithRepair(argv, { home: tracerHome(env), cwd: process.cwd(), env });
    const colored = wantsColor(env, stdout);
    cli = new Cli<TracerContext>({
      binaryLabel: 'tracer',
      binaryName: 'tracer',
      binaryVersion: VERSION,
      enableCapture: false,
      enableColors: colored,
    });
    for (const command of coreCommands) cli.register(withPluginUsage(command, kernel));
    for (const plugin of kernel.plugins) for (const command of plugin.commands ?? []) cli.register(command);
    cli.register(Builtins.HelpCommand);
    cli.register(Builtins.VersionCommand);
    context = { ...Cli.defaultContext, colorDepth: colored ? Cli.defaultContext.colorDepth : 1, kernel };
  } catch (error) {
    return reportError(error, stderr, env);
  }
  let command;
  try {
    command = cli.process(argv.length === 0 ? ['--help'] : argv, context);
  } catch (error) {
    return reportError(error, stderr, env);
  }
  return cli.run(command, context);
}

/** Failures of a plugin list entry, which config and plugins must still start despite. */
const REPAIRABLE_CODES = new Set([
  'invalid_plugin',
  'plugin_failed',
  'invalid_family',
  'duplicate_family',
  'duplicate_agent',
  'invalid_setting_value',
]);

/** Commands that can mend a broken plugin list, so they must start without it. */
const REPAIR_COMMANDS = new Set(['config', 'plugins', 'reset', 'help', '--help', '-h']);

/**
 * A plugin entry that does not load (a user's or project's list) would otherwise
 * lock the user out of the very commands that fix it: those start on the
 * built-ins alone and say why.
 */
async function bootWithRepair(argv: readonly string[], context: Parameters<typeof bootKernel>[0]) {
  const { bootKernel } = await import('../kernel/boot.js');
  try {
    return await bootKernel(context);
  } catch (error) {
    const repairable = error instanceof TracerError && REPAIRABLE_CODES.has(error.code);
    if (!repairable || !REPAIR_COMMANDS.has(argv[0] ?? '--help')) throw error;
    const kernel = await bootKernel(context, { builtinOnly: true });
    kernel.warn({ code: error.code, message: `${error.message} Only the built-in plugins are loaded until it is fixed` });
    return kernel;
  }
}

/** clipanion colours piped output by default; honour NO_COLOR and non-TTYs. */
function wantsColor(env: NodeJS.ProcessEnv, stdout: NodeJS.WriteStream): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stdout.isTTY);
}
