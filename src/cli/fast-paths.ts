// The exact command lines answered without clipanion or the plugin kernel, because
// something runs them on every tool use, commit or pull. cli/main.ts answers them
// from the modules; bin/tracer.js first asks bundleFor() for a prebuilt module
// (dist/hooks/, scripts/build-hook-bundles.mjs) that answers one alone.
import { AGENT_ID } from '../core/agent.js';

/** `hook <agent> <event>` exactly; anything else (`hook --help`, a missing event) goes to clipanion. */
export function isHookInvocation(argv: readonly string[]): boolean {
  return argv.length === 3 && argv[0] === 'hook' && argv.slice(1).every((arg) => !arg.startsWith('-'));
}

/** `hook --fold`, which bin/tracer-hook.sh starts in the background after spooling an event. */
export function isSpoolFold(argv: readonly string[]): boolean {
  return argv.length === 2 && argv[0] === 'hook' && argv[1] === '--fold';
}

/** `commit-link`, `rewrite-ledger <kind>` and `reconcile --post-merge [<span>]` exactly, as the git hooks (and the post-merge hook's run in the background) call them; flags and --help go to clipanion. */
export function isGitHookInvocation(argv: readonly string[]): boolean {
  return (
    (argv.length === 1 && argv[0] === 'commit-link') ||
    (argv.length === 2 && argv[0] === 'rewrite-ledger' && !argv[1]!.startsWith('-')) ||
    (argv.length === 2 && argv[0] === 'reconcile' && argv[1] === '--post-merge') ||
    (argv.length === 3 && argv[0] === 'reconcile' && argv[1] === '--post-merge' && !argv[2]!.startsWith('-'))
  );
}

/** `push`, `pull` or `sync`, alone or with `--json` or `--quiet` (src/cli/bare-transfers.ts); anything else goes to clipanion. */
export function isBareTransfer(argv: readonly string[]): boolean {
  const [command, output, ...rest] = argv;
  return (
    (command === 'push' || command === 'pull' || command === 'sync') &&
    rest.length === 0 &&
    (output === undefined || output === '--json' || output === '--quiet')
  );
}

/** The file of dist/hooks/ that answers this command line, when one may: a built-in agent's hook, git's, the spool's fold, or a bare push, pull or sync. */
export function bundleFor(argv: readonly string[]): string | undefined {
  if (isHookInvocation(argv) && AGENT_ID.test(argv[1]!)) return `${argv[1]}.js`;
  if (isGitHookInvocation(argv)) return 'git.js';
  if (isSpoolFold(argv)) return 'fold.js';
  if (isBareTransfer(argv)) return 'transfer.js';
  return undefined;
}
