import type { BaseContext } from 'clipanion';
import type { Kernel } from '../kernel/kernel.js';

/** What every command receives besides clipanion's stdin/stdout/stderr. */
export interface TracerContext extends BaseContext {
  kernel: Kernel;
}
