import { Command } from 'clipanion';
import { errorJson, wasPrintedAsJson, type TracerWarning } from '../core/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import type { LockHolder } from '../store/file-lock.js';
import { resolveProject, type ResolvedProject } from '../store/project.js';
import type { KernelOptions, TracerContext } from './context.js';
import { runReported } from './report.js';

/**
 * Base of every command: `run()` does the work; failures become one line on
 * stderr with a stable code and the exit code of their category.
 *
 * A command is a file of src/commands/ that exports its class; the build lists
 * it in the command registry (src/cli/registry.ts), nothing else to do.
 */
export abstract class TracerCommand extends Command<TracerContext> {
  /**
   * Whether the command reads what the agents' spool feeds (traces, transcripts,
   * summaries): the registry folds the spool in first (src/capture/spool/fold-first.ts).
   * Commands that read none of it (remotes, settings, tokens, rules, hooks'
   * installation) say false, and skip even the look at the spool.
   */
  static foldsSpoolFirst = true;

  /**
   * Whether the command boots the plugin kernel (families, remotes' transports, detectors, agents' installers): the
   * command table records it (dist/commands.json). A core command that calls kernel() says so
   * (test/structure/one-way-in.test.ts); the others start without the kernel's code (test/cli/kernel-free.test.ts).
   * A plugin's command need not: its plugin's kernel is booted before it runs.
   */
  static usesKernel = false;

  abstract run(): Promise<number | void>;

  async execute(): Promise<number> {
    return runReported(this.context, async () => {
      try {
        return await this.run();
      } catch (error) {
        // With --json, a failure is an object on stdout too (besides its line on stderr): a script always has one to read.
        if ((this as { json?: unknown }).json === true && !wasPrintedAsJson(error))
          this.context.stdout.write(`${JSON.stringify({ ok: false, error: errorJson(error) }, null, 2)}\n`);
        throw error;
      }
    });
  }

  /** The plugin kernel, booted on first use: only the commands that need plugins (families, remotes' transports, agents) call it. */
  protected kernel(options?: KernelOptions): Promise<Kernel> {
    return this.context.kernel(options);
  }

  /** The project of the working directory; it must be initialized. */
  protected project(): ResolvedProject {
    const { cwd, home, env } = this.context;
    return resolveProject({ cwd, home, env });
  }

  /**
   * For a wait on a lock another tracer process holds (the background reconcile,
   * say): once it lasts, one line on stderr says what the command waits for.
   */
  protected waitNotice(): (holder: LockHolder) => void {
    let said = false;
    return (holder) => {
      if (said) return;
      said = true;
      this.context.stderr.write(`tracer: waiting for ${holder.purpose ?? 'another tracer process'}, pid ${holder.pid}\n`);
    };
  }

  protected warn(warning: TracerWarning): void {
    this.context.warnings.push(warning);
  }

  protected print(text = ''): void {
    this.context.stdout.write(`${text}\n`);
  }

  protected printJson(value: unknown): void {
    this.context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
}
