// git's post-rewrite hook gets the kind of rewrite as its argument and, on stdin,
// one line per rewritten commit: "<old> <new>", plus an extra field some
// rewrites add. Ledgers and links follow the new commits in the order given, so
// a rebased commit is attributed after the rebased commits it now builds on.
import { ExitCode, TracerError } from '../../core/errors.js';

export const REWRITE_KINDS = ['amend', 'rebase'] as const;
export type RewriteKind = (typeof REWRITE_KINDS)[number];

export interface RewritePair {
  from: string;
  to: string;
}

const OBJECT_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

export function parseRewritePairs(input: string): RewritePair[] {
  const pairs: RewritePair[] = [];
  for (const [index, raw] of input.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const [from = '', to = ''] = line.split(/\s+/);
    if (!OBJECT_ID.test(from) || !OBJECT_ID.test(to)) {
      throw new TracerError(
        'invalid_rewrite_input',
        `Line ${index + 1} of the input is not "<old commit> <new commit>"; pass the lines git gives its post-rewrite hook.`,
        {
          exitCode: ExitCode.usage,
        },
      );
    }
    pairs.push({ from, to });
  }
  return pairs;
}
