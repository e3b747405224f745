import type { CommandClass } from 'clipanion';
import { ExitCode, TracerError, type TracerWarning } from '../core/errors.js';
import type { Project } from '../store/project.js';
import { checkFamily, type FamilyDefinition } from './families.js';
import { createHooks, type KernelHooks } from './hooks.js';
import { familySyncWithDefaults, type FamilySync, type FamilySyncInput } from '../engine/family-sync.js';
import type { RemoteQuery, ResolvedRemote } from './types.js';

/** Where the kernel runs: what plugins may read, never global process state. */
export interface KernelContext {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The project of cwd, when cwd is inside an initialized repository. */
  project?: Project;
}

/** The public plugin API. Built-ins use exactly this and nothing else. */
export interface TracerPlugin {
  name: string;
  apply(kernel: Kernel): void | Promise<void>;
  /** clipanion command classes this plugin brings. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command class names its own context type
  commands?: CommandClass<any>[];
}

/**
 * A hook bus plus the plugins applied to it. The kernel never names a family, a
 * route or a fallback: those arrive through plugins, in plugins.json order.
 */
export class Kernel {
  readonly hooks: KernelHooks = createHooks();
  readonly warnings: TracerWarning[] = [];
  readonly plugins: TracerPlugin[] = [];
  readonly #families: FamilyDefinition[] = [];
  readonly #familySync = new Map<string, FamilySync>();

  constructor(readonly context: KernelContext) {
    for (const [hookName, hook] of Object.entries(this.hooks)) {
      hook.intercept({ register: (tap) => wrapTap(hookName, tap as AnyTap) as typeof tap });
    }
  }

  async use(plugin: TracerPlugin): Promise<void> {
    try {
      await plugin.apply(this);
    } catch (error) {
      throw tracerErrorFrom(error, { plugin: plugin.name, hook: 'apply' });
    }
    this.plugins.push(plugin);
  }

  get families(): readonly FamilyDefinition[] {
    return this.#families;
  }

  family(name: string): FamilyDefinition | undefined {
    return this.#families.find((family) => family.name === name);
  }

  /** `sync` says how push and pull treat the family (manifest key, local store, which family it follows). */
  registerFamily(definition: FamilyDefinition, sync: FamilySyncInput = {}): void {
    checkFamily(definition, this.#families);
    const frozen = Object.freeze({ ...definition });
    this.#families.push(frozen);
    this.#familySync.set(definition.name, familySyncWithDefaults(frozen, sync));
  }

  /** How push and pull treat a registered family. */
  familySync(name: string): FamilySync | undefined {
    return this.#familySync.get(name);
  }

  warn(warning: TracerWarning): void {
    this.warnings.push(warning);
  }

  async resolveRemote(query: RemoteQuery): Promise<ResolvedRemote> {
    const remote = await this.hooks.resolveRemote.promise(query);
    if (!remote) {
      throw new TracerError(
        'remote_unresolved',
        'No enabled plugin resolves remotes; enable "remote-resolver" in plugins.json (see tracer plugins).',
        {
          exitCode: ExitCode.localState,
        },
      );
    }
    return remote;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wraps taps of every hook, whatever their arguments
type AnyTap = { type: 'sync' | 'async' | 'promise'; name: string; fn: (...args: any[]) => any };

/** Errors leave a tap tagged with the hook's and the plugin's names (cf. webpack's HookWebpackError). */
function wrapTap<T extends AnyTap>(hook: string, tap: T): T {
  const { fn } = tap;
  const wrap = (error: unknown) => tracerErrorFrom(error, { plugin: tap.name, hook });
  switch (tap.type) {
    case 'promise':
      return {
        ...tap,
        fn: (...args: unknown[]) => {
          try {
            return Promise.resolve(fn(...args)).catch((error: unknown) => Promise.reject(wrap(error)));
          } catch (error) {
            return Promise.reject(wrap(error));
          }
        },
      };
    case 'async':
      return {
        ...tap,
        fn: (...args: unknown[]) => {
          const callback = args.pop() as (error?: unknown, ...rest: unknown[]) => void;
          try {
            fn(...args, (error: unknown, ...rest: unknown[]) => callback(error ? wrap(error) : error, ...rest));
          } catch (error) {
            callback(wrap(error));
          }
        },
      };
    default:
      return {
        ...tap,
        fn: (...args: unknown[]) => {
          try {
            return fn(...args);
          } catch (error) {
            throw wrap(error);
          }
        },
      };
  }
}

/**
 * A TracerError keeps its code and sentence (it is an expected outcome) and gains
 * the plugin and hook names; anything else is a plugin failure and says which.
 */
function tracerErrorFrom(error: unknown, where: { plugin: string; hook: string }): TracerError {
  if (error instanceof TracerError) {
    error.plugin ??= where.plugin;
    error.hook ??= where.hook;
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new TracerError('plugin_failed', `Plugin "${where.plugin}" failed in ${where.hook}: ${message}`, { cause: error, ...where });
}
