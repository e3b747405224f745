import type { Writable } from 'node:stream';
import type { Kernel } from '../kernel/kernel.js';
import { resolveProject } from '../store/project.js';
import { pullCommand, pushCommand, syncCommand } from '../engine/transfer-commands.js';
import { runReported } from './report.js';

/**
 * `tracer push`, `tracer pull` and `tracer sync` with nothing after them, as
 * agent hooks, git hooks and schedulers run them: the work of those commands
 * (src/commands/push.ts, pull.ts, sync.ts) with every option at its default,
 * without loading clipanion, a sixth of a no-op push (122 -> 109 ms). Anything
 * more on the command line, --help included, goes to the commands themselves
 * (main.ts decides).
 */
export async function runBareTransfer(
  command: 'push' | 'pull' | 'sync',
  kernel: Kernel,
  stdout: Writable & { isTTY?: boolean },
  stderr: Writable,
): Promise<number> {
  return runReported(kernel, stderr, async () => {
    // As the commands' this.project(): outside an initialized project this throws project_not_initialized.
    if (!kernel.context.project) resolveProject({ cwd: kernel.context.cwd, home: kernel.context.home, env: kernel.context.env });
    const io = { kernel, stdout };
    if (command === 'push') return pushCommand(io, { full: false, dryRun: false });
    if (command === 'pull') return pullCommand(io, { dryRun: false });
    return syncCommand(io, {});
  });
}
