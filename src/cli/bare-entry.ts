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

/** A prebuilt module's: the built-in plugins already in memory, and the CLI's own run of the line when they do not cover the plugin list. */
export interface Bundled {
  builtins: BuiltinPlugins;
  unbundled: () => Promise<number>;
}

export async function bareMain(argv: readonly string[], bundled?: Bundled): Promise<number> {
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
    kernel = bundled ? await bootBuiltinKernel(context, bundled.builtins) : await bootKernel(context);
  } catch (error) {
    return reportError(error, stderr, env);
  }
  // Only bootBuiltinKernel answers undefined: a plugin list its built-ins do not cover.
  if (!kernel) return bundled!.unbundled();
  const { runBareTransfer } = await loading;
  return runBareTransfer(argv[0] as 'push' | 'pull' | 'sync', (argv[1] ?? '') as BareOutput, kernel, stdout, stderr);
}
