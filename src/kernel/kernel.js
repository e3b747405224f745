import { TracerError } from '../core/errors.js';
import { registeredFamily } from './families.js';
import { createHooks } from './hooks.js';
/**
 * A hook bus plus the plugins applied to it. The kernel never names a family, a
 * route or a fallback: those arrive through plugins, in plugins.json order.
 */
export class Kernel {
  context;
  hooks = createHooks();
  warnings = [];
  plugins = [];
  #families = [];
  /** The plugin being applied: families it registers are its own. */
  #applying = '(no plugin)';
  constructor(context) {
    this.context = context;
    for (const [hookName, hook] of Object.entries(this.hooks)) {
      hook.intercept({ register: (tap) => wrapTap(hookName, tap) });
    }
  }
  async use(plugin) {
    this.#applying = plugin.name;
    try {
      await plugin.apply(this);
    } catch (error) {
      throw tracerErrorFrom(error, { plugin: plugin.name, hook: 'apply' });
    } finally {
      this.#applying = '(no plugin)';
    }
    this.plugins.push(plugin);
  }
  get families() {
    return this.#families;
  }
  family(name) {
    return this.#families.find((family) => family.name === name);
  }
  /** Refuses an invalid definition, and a name or manifest key another plugin already registered. */
  registerFamily(definition) {
    const family = registeredFamily(definition, this.#applying, this.#families);
    this.#families.push(family);
    return family;
  }
  warn(warning) {
    this.warnings.push(warning);
  }
}
/** Errors leave a tap tagged with the hook's and the plugin's names (cf. webpack's HookWebpackError). */
function wrapTap(hook, tap) {
  const { fn } = tap;
  const wrap = (error) => tracerErrorFrom(error, { plugin: tap.name, hook });
  switch (tap.type) {
    case 'promise':
      return {
        ...tap,
        fn: (...args) => {
          try {
            return Promise.resolve(fn(...args)).catch((error) => Promise.reject(wrap(error)));
          } catch (error) {
            return Promise.reject(wrap(error));
          }
        },
      };
    case 'async':
      return {
        ...tap,
        fn: (...args) => {
          const callback = args.pop();
          try {
            fn(...args, (error, ...rest) => callback(error ? wrap(error) : error, ...rest));
          } catch (error) {
            callback(wrap(error));
          }
        },
      };
    default:
      return {
        ...tap,
        fn: (...args) => {
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
function tracerErrorFrom(error, where) {
  if (error instanceof TracerError) {
    error.plugin ??= where.plugin;
    error.hook ??= where.hook;
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new TracerError('plugin_failed', `Plugin "${where.plugin}" failed in ${where.hook}: ${message}`, { cause: error, ...where });
}
