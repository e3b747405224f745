// Redaction's own extension point, kept by the redaction plugin rather than the
// kernel (webpack's getCompilationHooks pattern): `redactionHooks(kernel)` gives
// the one frozen hooks object of that kernel. Built-in layers and an
// organization's detector tap it the same way.
import { AsyncSeriesHook } from '../kernel/hooks.js';
import type { Kernel } from '../kernel/kernel.js';
import { pluginFailed } from './plugin-failure.js';
import type { DetectorSet, DetectorSource, RedactionScope } from './types.js';

export function createRedactionHooks() {
  return Object.freeze({
    /**
     * Collects the detectors redaction runs, in plugin-list order. Series: every tap
     * adds its own to the set; a tap that fails is reported (`redact_plugin_failed`)
     * and skipped, and the others still add theirs, so one broken detector never
     * leaves text unredacted by the rest.
     */
    detectors: new AsyncSeriesHook<[DetectorSet, RedactionScope]>(['detectors', 'scope']),
  });
}

export type RedactionHooks = ReturnType<typeof createRedactionHooks>;

/** Each kernel's redaction hooks, made on first use. */
const hooksOf = new WeakMap<Kernel, RedactionHooks>();

/** The redaction hooks of this kernel, made on first use. */
export function redactionHooks(kernel: Kernel): RedactionHooks {
  let hooks = hooksOf.get(kernel);
  if (!hooks) {
    hooks = createRedactionHooks();
    hooks.detectors.intercept({ register: (tap) => tolerant(tap as AnyTap) as typeof tap });
    hooksOf.set(kernel, hooks);
  }
  return hooks;
}

/** The detectors a kernel's plugins add. */
export function kernelDetectors(kernel: Kernel): DetectorSource {
  return (set, scope) => redactionHooks(kernel).detectors.promise(set, scope);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wraps taps whatever their arguments
type AnyTap = { type: 'sync' | 'async' | 'promise'; name: string; fn: (...args: any[]) => any };

/** A tap whose failure is reported through the scope (the hook's second argument) instead of ending the series. */
function tolerant(tap: AnyTap): AnyTap {
  const { fn } = tap;
  const report = (scope: RedactionScope | undefined, error: unknown) => scope?.report(pluginFailed(tap.name, error));
  switch (tap.type) {
    case 'promise':
      return {
        ...tap,
        fn: (...args: unknown[]) => {
          try {
            return Promise.resolve(fn(...args)).catch((error: unknown) => report(args[1] as RedactionScope, error));
          } catch (error) {
            report(args[1] as RedactionScope, error);
            return Promise.resolve();
          }
        },
      };
    case 'async':
      return {
        ...tap,
        fn: (...args: unknown[]) => {
          const callback = args.pop() as (error?: unknown) => void;
          try {
            fn(...args, (error: unknown) => {
              if (error) report(args[1] as RedactionScope, error);
              callback();
            });
          } catch (error) {
            report(args[1] as RedactionScope, error);
            callback();
          }
        },
      };
    default:
      return {
        ...tap,
        fn: (...args: unknown[]) => {
          try {
            fn(...args);
          } catch (error) {
            report(args[1] as RedactionScope, error);
          }
        },
      };
  }
}
