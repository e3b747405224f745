// The one way a command line becomes a command. The table of commands
// (command-table.ts, made at build time) says which module defines the command
// the line names; only that module is imported, and clipanion parses the line:
// nothing else in tracer reads argv. Help, and a line that names no command,
// load every command, and the plugin kernel for the commands plugins bring.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cli, CommandClass } from 'clipanion';
import { FROM_SOURCE, PACKAGE_ROOT } from '../core/package-root.js';
import { importProgramModule } from '../core/program-module.js';
import { VERSION } from '../core/version.js';
import { spoolPending } from '../capture/spool/pending.js';
import type { TracerWarning } from '../core/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { isCommandClass, TABLE_FILE, type CommandEntry } from './command-table.js';
import { commandContext, type MainIo, type TracerContext } from './context.js';
import { withPluginUsage } from './plugin-usage.js';
import { reportError, reportWarnings } from './report.js';

type Commands = CommandClass<TracerContext>[];

/** Parses `argv` with the commands it may name, then runs the command; the exit code. */
export async function runCommandLine(argv: readonly string[], io: MainIo): Promise<number> {
  // What was spooled before this moment is what the command must show (src/capture/spool/fold-first.ts).
  const began = Date.now();
  // Scripts and agents' hooks probe with --version: the registry answers it without building a parser.
  if (argv.length === 1 && VERSION_FLAGS.has(argv[0]!)) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  // Loaded past --version: the parser is most of what every other line loads.
  const { Builtins, Cli } = await import('clipanion');
  const colored = wantsColor(io.env, io.stdout);
  const context = commandContext(io, colored ? colorDepth(io) : 1);
  let line = argv.length === 0 ? ['--help'] : [...argv];
  let cli: Cli<TracerContext>;
  let command: ReturnType<Cli<TracerContext>['process']>;
  try {
    cli = new Cli<TracerContext>({
      binaryLabel: 'tracer',
      binaryName: 'tracer',
      binaryVersion: VERSION,
      enableCapture: false,
      enableColors: colored,
    });
    const { commands, everything, namespace } = await commandsFor(line, context);
    for (const commandClass of commands) cli.register(commandClass);
    // `tracer --help` and the list of commands; a command's own -h is its own.
    if (everything) for (const builtin of [Builtins.HelpCommand, Builtins.VersionCommand]) cli.register(builtin);
    // `tracer token` or `tracer token --help`: the list of the commands under that word.
    if (namespace) line = ['--help'];
    command = cli.process(line, context);
  } catch (error) {
    reportWarnings(context.warnings, io.stderr);
    return reportError(error, io.stderr, io.env);
  }
  // Whatever reads traces reads them after the agents' spooled events are in (src/capture/spool/fold-first.ts).
  if (!command.help && (command.constructor as { foldsSpoolFirst?: boolean }).foldsSpoolFirst === true) {
    const notice = await foldSpoolFirst(context, began);
    if (notice) {
      context.warnings.push(notice);
      if ((command as { json?: unknown }).json === true) return withJsonNotice(context, notice, () => cli.run(command, context));
    }
  }
  const code = await cli.run(command, context);
  // A command reports its own notices; help (clipanion's, or a command's -h) reports none: a broken plugin list says so here.
  reportWarnings(context.warnings, io.stderr);
  return code;
}

/**
 * A --json command run without part of the spool: its one JSON object carries the notice as
 * `"warnings": [{"code", "message"}]` (output that is not one object is left as it is; stderr has the notice).
 */
async function withJsonNotice(context: TracerContext, notice: TracerWarning, run: () => Promise<number>): Promise<number> {
  const { Writable } = await import('node:stream');
  const stdout = context.stdout;
  const chunks: string[] = [];
  context.stdout = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      done();
    },
  });
  try {
    return await run();
  } finally {
    context.stdout = stdout;
    stdout.write(withWarning(chunks.join(''), notice));
  }
}

function withWarning(text: string, notice: TracerWarning): string {
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return text;
    const warnings = [...((value as { warnings?: unknown[] }).warnings ?? []), { code: notice.code, message: notice.message }];
    return `${JSON.stringify({ ...value, warnings }, null, text.includes('\n  ') ? 2 : undefined)}\n`;
  } catch {
    return text;
  }
}

/**
 * The command classes `line` may name: its own command's module; the commands under its first word when that word
 * is only a namespace (`tracer token`, `tracer token --help`); or every command when it names none.
 */
async function commandsFor(
  line: readonly string[],
  context: TracerContext,
): Promise<{ commands: Commands; everything: boolean; namespace?: boolean }> {
  const table = await commandTable();
  const named = longestMatch(table, line);
  const under = namespaceEntries(table, line);
  if (under.length > 0) {
    // Help, so the plugins may load: the commands they bring under that word are listed too, and one that takes the
    // word alone (`tracer config` of a plugin) is a command, not a namespace.
    const kernel = await context.kernel({ builtinsIfBroken: true });
    const brought = pluginCommands(kernel).filter((command) => (command.paths ?? []).some((path) => path[0] === line[0]));
    if (!brought.some((command) => (command.paths ?? []).some((path) => path.length === 1))) {
      const core = [...new Set(await Promise.all(under.map(importCommand)))];
      return { commands: [...core, ...brought], everything: true, namespace: true };
    }
  }
  if (named.length > 0 && named.every((entry) => !entry.plugin)) {
    const classes = await Promise.all(named.map(importCommand));
    // Help that lists the enabled plugins' families (push, pull) needs their kernel, which those commands boot anyway.
    if (!classes.some((commandClass) => 'usageWith' in commandClass)) return { commands: classes, everything: false };
    const kernel = await context.kernel();
    return { commands: classes.map((commandClass) => withPluginUsage(commandClass, kernel)), everything: false };
  }
  // Help, a line that names no command of the table, or a built-in plugin's command: everything, plugins' commands included.
  // A broken plugin list must not hide the help that says how to fix it.
  const kernel = await context.kernel({ builtinsIfBroken: !named.some((entry) => entry.plugin) });
  const every = FROM_SOURCE ? await scannedTable() : table;
  const core = await Promise.all(every.filter((entry) => !entry.plugin).map(importCommand));
  const commands = [...new Set(core)].map((commandClass) => withPluginUsage(commandClass, kernel)).concat(pluginCommands(kernel));
  return { commands, everything: true };
}

const VERSION_FLAGS = new Set(['--version', '-v']);
const HELP_FLAGS = new Set(['--help', '-h']);

/**
 * The core commands under `line`'s first word, when that word names no command of its own and the line is that word
 * alone or asks for help (`tracer token`, `tracer config --help`); none otherwise.
 */
function namespaceEntries(table: readonly CommandEntry[], line: readonly string[]): CommandEntry[] {
  const [word, next] = line;
  if (word === undefined || line.length > 2 || (next !== undefined && !HELP_FLAGS.has(next))) return [];
  if (table.some((entry) => entry.path.length === 1 && entry.path[0] === word)) return [];
  const under = table.filter((entry) => entry.path.length > 1 && entry.path[0] === word);
  return under.every((entry) => !entry.plugin) ? under : [];
}

/** The entries whose path is the longest one `line` starts with (several classes may share a path). */
function longestMatch(table: readonly CommandEntry[], line: readonly string[]): CommandEntry[] {
  const matches = table.filter((entry) => entry.path.every((word, index) => line[index] === word));
  const longest = Math.max(0, ...matches.map((entry) => entry.path.length));
  return longest === 0 ? [] : matches.filter((entry) => entry.path.length === longest);
}

async function importCommand(entry: CommandEntry): Promise<CommandClass<TracerContext>> {
  const module = await importProgramModule(entry.module);
  const commandClass = module[entry.export ?? ''];
  if (!isCommandClass(commandClass))
    throw new Error(`${entry.module} no longer exports the command ${entry.export}: run npm run build to remake the command table.`);
  return commandClass as unknown as CommandClass<TracerContext>;
}

/** The commands of the enabled plugins, built-in or not: a plugin brings them in its `commands`. */
function pluginCommands(kernel: Kernel): Commands {
  return kernel.plugins.flatMap((plugin) => (plugin.commands ?? []) as Commands);
}

let table: Promise<CommandEntry[]> | undefined;
let scanned: Promise<CommandEntry[]> | undefined;

/**
 * The build's table (dist/commands.json), whose module names are the sources' too: run from the sources (the
 * tests, after the build `npm test` makes when src/ changed), the registry reads the same file, and makes the
 * table by importing every command only when there is none yet, and for the lines that name no command of it
 * (so help shows a command added since the last build).
 */
function commandTable(): Promise<CommandEntry[]> {
  return (table ??= readTable());
}

function scannedTable(): Promise<CommandEntry[]> {
  return (scanned ??= import('./command-table.js').then(({ scanCommands }) => scanCommands()));
}

async function readTable(): Promise<CommandEntry[]> {
  try {
    return JSON.parse(readFileSync(join(PACKAGE_ROOT, 'dist', TABLE_FILE), 'utf8')) as CommandEntry[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return scannedTable();
}

async function foldSpoolFirst(context: TracerContext, began: number): Promise<TracerWarning | undefined> {
  if (!spoolPending(context.home)) return undefined;
  return (await import('../capture/spool/fold-first.js')).foldSpoolFirst(context.env, context.stderr, began);
}

/**
 * How many colours a coloured run may use: the terminal's answer, or 256 when
 * FORCE_COLOR colours a pipe. (The build gives clipanion its Node-free platform
 * module, whose default is 1, to spare loading tty: scripts/build.mjs.)
 */
function colorDepth(io: MainIo): number {
  const stdout = io.stdout as { getColorDepth?: (env?: object) => number };
  return typeof stdout.getColorDepth === 'function' ? stdout.getColorDepth(io.env) : 8;
}

/** clipanion colours piped output by default; honour NO_COLOR and non-TTYs. */
function wantsColor(env: NodeJS.ProcessEnv, stdout: MainIo['stdout']): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stdout.isTTY);
}
