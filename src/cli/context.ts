// What a command runs with. Everything comes from main's caller (bin/tracer.js
// passes the process's own; tests pass their streams, environment and folder),
// never from `process`, so a command runs the same in its own process and in a
// test's. The plugin kernel is booted by the first command that asks for it.
import type { BaseContext } from 'clipanion';
import type { Readable, Writable } from 'node:stream';
import { TracerError, type TracerWarning } from '../core/errors.js';
import type { Kernel, KernelContext } from '../kernel/kernel.js';
import { tracerHome } from '../store/home.js';

/** What main() is given: the streams, environment and working folder of one invocation. */
export interface MainIo {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface KernelOptions {
  /**
   * For the commands that mend a broken plugin list (`plugins`, `reset`, help):
   * when an entry does not load, boot on the built-in plugins alone and warn,
   * instead of locking the user out of the very command that fixes it.
   */
  builtinsIfBroken?: boolean;
}

/** clipanion's context (stdin, stdout, stderr, env, colorDepth) plus where the command runs and its kernel. */
export interface TracerContext extends BaseContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** `$TRACER_HOME`. */
  home: string;
  /** The plugin kernel, booted on the first call and the same one after. */
  kernel(options?: KernelOptions): Promise<Kernel>;
  /** Notices of this run, the kernel's and the command's, printed on stderr when it ends (src/cli/report.ts). */
  warnings: TracerWarning[];
}

export function commandContext(io: MainIo, colorDepth: number): TracerContext {
  const home = tracerHome(io.env);
  const warnings: TracerWarning[] = [];
  let booting: Promise<Kernel> | undefined;
  return {
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    colorDepth,
    cwd: io.cwd,
    home,
    warnings,
    kernel: (options = {}) => (booting ??= bootKernelFor({ home, cwd: io.cwd, env: io.env }, warnings, options)),
  };
}

/** Failures of a plugin list entry that `builtinsIfBroken` starts despite. */
const REPAIRABLE_CODES = new Set([
  'invalid_plugin',
  'plugin_failed',
  'invalid_family',
  'duplicate_family',
  'duplicate_agent',
  'invalid_setting_value',
]);

async function bootKernelFor(context: Omit<KernelContext, 'project'>, warnings: TracerWarning[], options: KernelOptions): Promise<Kernel> {
  const { bootKernel } = await import('../kernel/boot.js');
  const before = warnings.length;
  try {
    return await bootKernel(context, { warnings });
  } catch (error) {
    const repairable = error instanceof TracerError && REPAIRABLE_CODES.has(error.code);
    if (!repairable || !options.builtinsIfBroken) throw error;
    // The failed boot's own warnings would be reported twice.
    warnings.splice(before);
    const kernel = await bootKernel(context, { builtinOnly: true, warnings });
    kernel.warn({ code: error.code, message: `${error.message} Only the built-in plugins are loaded until it is fixed` });
    return kernel;
  }
}
