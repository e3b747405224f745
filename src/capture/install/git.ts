import { execFileSync } from 'node:child_process';
import { ExitCode, TracerError } from '../../core/errors.js';

/** Runs git for init (not a hot path, unlike the hooks): output trimmed, failures one sentence. */
export function runGit(
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  options: { allowFailure?: boolean } = {},
): string | undefined {
  try {
    return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trimEnd();
  } catch (error) {
    if (options.allowFailure) return undefined;
    const detail = String((error as { stderr?: string }).stderr ?? (error as Error).message)
      .trim()
      .split('\n')[0];
    throw new TracerError(
      'git_failed',
      `git ${args.join(' ')} failed (${detail}); check that git works in this repository and run the command again.`,
      {
        exitCode: ExitCode.localState,
      },
    );
  }
}
