// Runs git plumbing for the ledger. The environment is passed through on purpose:
// inside git's own hooks GIT_DIR (and in a linked worktree GIT_COMMON_DIR) say
// which repository is meant, and git must see them.
import { execFile } from 'node:child_process';
import { ExitCode, TracerError } from '../../core/errors.js';

export interface GitOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string;
  /** Kill git past this many milliseconds (a fetch from a slow remote); the call then fails. */
  timeoutMs?: number;
}

/** A diff of a large generated file can run to many MiB; past this the commit is not read. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

export function runGit(args: readonly string[], options: GitOptions): Promise<string> {
  return execGit(args, options, 'utf8');
}

/** git's output as bytes: `cat-file --batch` counts object sizes in bytes, not characters. */
export function runGitBytes(args: readonly string[], options: GitOptions): Promise<Buffer> {
  return execGit(args, options, 'buffer');
}

function execGit<Out extends string | Buffer>(args: readonly string[], options: GitOptions, encoding: 'utf8' | 'buffer'): Promise<Out> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: options.env, maxBuffer: MAX_OUTPUT_BYTES, encoding, timeout: options.timeoutMs ?? 0 },
      (error, stdout, stderr) => {
        if (error) reject(gitFailed(args, String(stderr), error));
        else resolve(stdout as Out);
      },
    );
    // git may exit before reading its input (a bad revision): that EPIPE is not the failure to report.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
  });
}

export class GitCommandError extends TracerError {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    cause: unknown,
  ) {
    const first =
      stderr
        .split('\n')
        .find((line) => line.trim() !== '')
        ?.trim() ?? (cause as Error).message;
    super(
      'git_failed',
      `git ${args.find((arg) => !arg.startsWith('-')) ?? ''} failed: ${first.replace(/\.$/, '')}; check the repository with git status and run the command again.`,
      {
        exitCode: ExitCode.localState,
        cause,
      },
    );
  }
}

function gitFailed(args: readonly string[], stderr: string, error: unknown): TracerError {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    return new TracerError('git_not_found', 'git is not installed or not on PATH; install git and run the command again.', {
      exitCode: ExitCode.localState,
      cause: error,
    });
  }
  return new GitCommandError(args, stderr, error);
}
