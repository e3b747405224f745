import type { CommandClass } from 'clipanion';
import { TracerError, type TracerWarning } from '../core/errors.js';
import type { Project } from '../store/project.js';
import { addAgent, type AgentAdapter } from '../core/agent.js';
import { registeredFamily, type FamilyDefinition, type RegisteredFamily } from './families.js';
import { createHooks, type KernelHooks } from './hooks.js';

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
  /** Agents this plugin records (src/plugins/agents/ holds one plugin per built-in agent). */
  agents?: AgentAdapter[];
}

/**
 * A hook bus plus the plugins applied to it. The kernel never names a family, a
 * route or a fallback: those arrive through plugins, in plugins.json order.
 */
export class Kernel {
  readonly hooks: KernelHooks = createHooks();
  readonly plugins: TracerPlugin[] = [];
  readonly #families: RegisteredFamily[] = [];
  readonly #agents: Array<AgentAdapter & { plugin: string }> = [];
  /** Where each plugin stands in the plugin list, so plugins applied late still read in list order. */
  readonly #positions = new WeakMap<object, number>();
  /**
   * The agents' own plugins, imported on first need (loadAgents): most commands
   * use no agent, and a dozen adapters with their helpers cost a no-op push
   * about a sixth of its start-up (BENCHMARKS.md, issue 23).
   */
  #deferredAgents: (() => Promise<void>) | undefined;
  /** The plugin being applied: families it registers are its own. */
  #applying = '(no plugin)';

  /** `warnings`: where kernel.warn() puts notices; the command's own list, so that both are reported in the order they came. */
  constructor(
    readonly context: KernelContext,
    readonly warnings: TracerWarning[] = [],
  ) {
    for (const [hookName, hook] of Object.entries(this.hooks)) {
      hook.intercept({ register: (tap) => wrapTap(hookName, tap as AnyTap) as typeof tap });
    }
  }

  /** Applies a plugin; `position` is its place in the plugin list when it is applied out of order. */
  async use(plugin: TracerPlugin, position = this.plugins.length): Promise<void> {
    this.#applying = plugin.name;
    try {
      await plugin.apply(this);
    } catch (error) {
      throw tracerErrorFrom(error, { plugin: plugin.name, hook: 'apply' });
    } finally {
      this.#applying = '(no plugin)';
    }
    this.#positions.set(plugin, position);
    for (const agent of plugin.agents ?? []) this.#positions.set(this.#registerAgent(agent, plugin.name), position);
    this.plugins.push(plugin);
    this.plugins.sort(this.#byPosition);
    this.#agents.sort(this.#byPosition);
  }

  /** Plugins that only bring agents, applied by `load` when a command first needs the agents. */
  deferAgents(load: () => Promise<void>): void {
    this.#deferredAgents = load;
  }

  /** Applies the deferred agents' plugins (once); commands that install, list or name agents call it first. */
  async loadAgents(): Promise<ReadonlyArray<AgentAdapter & { plugin: string }>> {
    const load = this.#deferredAgents;
    this.#deferredAgents = undefined;
    if (load) await load();
    return this.#agents;
  }

  /** The agents of the enabled plugins, in plugin-list order; loadAgents() must have run. */
  get agents(): ReadonlyArray<AgentAdapter & { plugin: string }> {
    if (this.#deferredAgents) throw new Error('kernel.agents was read before kernel.loadAgents(): await it first.');
    return this.#agents;
  }

  readonly #byPosition = (a: object, b: object): number => (this.#positions.get(a) ?? 0) - (this.#positions.get(b) ?? 0);

  agent(id: string): (AgentAdapter & { plugin: string }) | undefined {
    return this.agents.find((agent) => agent.id === id);
  }

  #registerAgent(agent: AgentAdapter, plugin: string): AgentAdapter & { plugin: string } {
    return addAgent(this.#agents, agent, plugin);
  }

  get families(): readonly RegisteredFamily[] {
    return this.#families;
  }

  family(name: string): RegisteredFamily | undefined {
    return this.#families.find((family) => family.name === name);
  }

  /** Refuses an invalid definition, and a name or manifest key another plugin already registered. */
  registerFamily(definition: FamilyDefinition): RegisteredFamily {
    const family = registeredFamily(definition, this.#applying, this.#families);
    this.#families.push(family);
    return family;
  }

  warn(warning: TracerWarning): void {
    this.warnings.push(warning);
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
