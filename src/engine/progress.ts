// The one place a run's progress is emitted: each step starts, advances and ends
// here, so whatever draws it (src/engine/progress-display.ts, through the
// kernel's progress hook) sees one consistent stream and no step forgets to end.
import type { Kernel } from '../kernel/kernel.js';

export interface StepOutcome {
  status: 'done' | 'skipped';
  summary: string;
}

/** Runs a step between its start and its end; a failure ends it as failed and goes on up. */
export async function inStep<T>(kernel: Kernel, step: string, run: () => Promise<T>, outcome: (result: T) => StepOutcome): Promise<T> {
  kernel.hooks.progress.call({ type: 'step-start', step });
  let result: T;
  try {
    result = await run();
  } catch (error) {
    kernel.hooks.progress.call({
      type: 'step-end',
      step,
      status: 'failed',
      summary: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
  kernel.hooks.progress.call({ type: 'step-end', step, ...outcome(result) });
  return result;
}

export function stepAdvanced(kernel: Kernel, step: string, done: number, detail: string): void {
  kernel.hooks.progress.call({ type: 'step-progress', step, done, detail });
}
