// `tracer push`, `tracer pull` and `tracer sync`, alone or with `--json` or
// `--quiet`, as agent hooks, git hooks and schedulers run them: the same work as
// the commands in src/commands/ (src/engine/transfer-commands.ts, with its
// defaults), without loading clipanion (BENCHMARKS.md, "Bare push, pull and
// sync"). Anything else on the command line, --help included, goes to the
// commands themselves (main.ts decides). test/cli/fast-path.test.ts proves both
// paths give the same output, exit code and state files.
import type { Writable } from 'node:stream';
import type { Kernel } from '../kernel/kernel.js';
import { resolveProject } from '../store/project.js';
import { pullCommand, pushCommand, syncCommand } from '../engine/transfer-commands.js';
import { runReported } from './report.js';

export type BareOutput = '' | '--json' | '--quiet';

export async function runBareTransfer(
  command: 'push' | 'pull' | 'sync',
  output: BareOutput,
  kernel: Kernel,
  stdout: Writable & { isTTY?: boolean },
  stderr: Writable,
): Promise<number> {
  return runReported(kernel, stderr, async () => {
    // As the commands' this.project(): outside an initialized project this throws project_not_initialized.
    if (!kernel.context.project) resolveProject({ cwd: kernel.context.cwd, home: kernel.context.home, env: kernel.context.env });
    const io = { kernel, stdout, json: output === '--json', quiet: output === '--quiet' };
    if (command === 'push') return pushCommand(io, {});
    if (command === 'pull') return pullCommand(io, {});
    return syncCommand(io, {});
  });
}
