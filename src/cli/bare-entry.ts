// `tracer push`, `pull` or `sync` alone (cli/fast-paths.ts isBareTransfer): the
// kernel, then the transfer, without clipanion. cli/main.ts runs it from the
// modules; dist/hooks/transfer.js (scripts/build-hook-bundles.mjs) runs it from
// one prebuilt module that holds the built-in plugins too, and hands the line
// back to the CLI when the plugin list names any other plugin.
import type { Kernel } from '../kernel/kernel.js';
import type { BuiltinPlugins } from '../kernel/plugin-list.js';
import { tracerHome } from '../store/home.js';
import type { BareOutput } from './bare-transfers.js';
import { reportError } from './report.js';

export interface BareOptions {
  /** The built-in plugins already in memory; with them, `unbundled` runs the line when they do not cover the plugin list. */
  builtins?: BuiltinPlugins;
  unbundled?: () => Promise<number>;
}

export async function bareMain(argv: readonly string[], options: BareOptions = {}): Promise<number> {
  const { stdout, stderr, env } = process;
  // The transfer code, and the HTTP client under it, load while the kernel boots.
  const loading = import('./bare-transfers.js');
  loading.catch(() => {}); // a boot failure is reported first
  import('../net/http-client.js').then(
    ({ preloadFetch }) => preloadFetch(),
    () => undefined,
  );
  let kernel: Kernel | undefined;
  try {
    const { bootBuiltinKernel, bootKernel } = await import('../kernel/boot.js');
    const context = { home: tracerHome(env), cwd: process.cwd(), env };
    kernel = options.builtins ? await bootBuiltinKernel(context, options.builtins) : await bootKernel(context);
  } catch (error) {
    return reportError(error, stderr, env);
  }
  if (!kernel) return options.unbundled!();
  const { runBareTransfer } = await loading;
  return runBareTransfer(argv[0] as 'push' | 'pull' | 'sync', (argv[1] ?? '') as BareOutput, kernel, stdout, stderr);
}
