import { Command } from 'clipanion';
import { runReported } from './report.js';
import type { TracerContext } from './context.js';
import { resolveProject, type ResolvedProject } from '../store/project.js';

/**
 * Base of every command: `run()` does the work; failures become one line on
 * stderr with a stable code and the exit code of their category.
 */
export abstract class TracerCommand extends Command<TracerContext> {
  abstract run(): Promise<number | void>;

  async execute(): Promise<number> {
    return runReported(this.context.kernel, this.context.stderr, () => this.run());
  }

  /** The project of the working directory; it must be initialized. */
  protected project(): ResolvedProject {
    const { kernel } = this.context;
    if (kernel.context.project) return { ...kernel.context.project, created: false };
    return resolveProject({ cwd: kernel.context.cwd, home: kernel.context.home, env: kernel.context.env });
  }

  protected print(text = ''): void {
    this.context.stdout.write(`${text}\n`);
  }

  protected printJson(value: unknown): void {
    this.context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
}
