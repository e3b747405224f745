// How a push or pull is drawn. It only observes the kernel's `progress` hook:
// no plugin knows which display is in use.
//  - tty: a listr2 task list, one line per step with live counts;
//  - plain: one line per finished step (no TTY, e.g. CI or agent hooks);
//  - json / quiet: nothing while running (the command prints the result, or errors only).
import type { Writable } from 'node:stream';
import type { Kernel } from '../kernel/kernel.js';
import type { SyncEvent } from '../kernel/types.js';

export type OutputMode = 'tty' | 'plain' | 'json' | 'quiet';

export interface ProgressDisplay {
  /** Resolves once the display has drawn its last frame. */
  finish(error?: unknown): Promise<void>;
}

export function outputMode(
  flags: { json?: boolean; quiet?: boolean },
  stdout: Writable & { isTTY?: boolean; columns?: number },
): OutputMode {
  if (flags.json) return 'json';
  if (flags.quiet) return 'quiet';
  // A terminal too narrow to draw in (or reporting no width) gets plain lines.
  return stdout.isTTY && (stdout.columns ?? 0) >= 40 ? 'tty' : 'plain';
}

export async function showProgress(
  kernel: Kernel,
  mode: OutputMode,
  steps: readonly string[],
  stdout: Writable,
  indent = '  ',
): Promise<ProgressDisplay> {
  if (mode === 'plain') return plainDisplay(kernel, stdout, indent);
  if (mode === 'tty') return ttyDisplay(kernel, steps);
  return { finish: async () => undefined };
}

function plainDisplay(kernel: Kernel, stdout: Writable, indent: string): ProgressDisplay {
  let active = true;
  kernel.hooks.progress.tap('plain-display', (event) => {
    if (active && event.type === 'step-end')
      stdout.write(`${indent}${event.step}: ${event.status === 'failed' ? 'failed' : event.summary}\n`);
  });
  return {
    finish: async () => {
      active = false;
    },
  };
}

interface Deferred {
  promise: Promise<void>;
  settle(event?: Extract<SyncEvent, { type: 'step-end' }>, error?: unknown): void;
}

async function ttyDisplay(kernel: Kernel, steps: readonly string[]): Promise<ProgressDisplay> {
  const { Listr } = await import('listr2');
  const titles = new Map<string, (title: string) => void>();
  const ends = new Map<string, Deferred>();
  for (const step of steps) ends.set(step, deferred());
  const list = new Listr(
    steps.map((step) => ({
      title: step,
      task: async (_context: unknown, task: { title: string; skip(message?: string): void }) => {
        titles.set(step, (title) => (task.title = title));
        const end = await ends.get(step)!.promise.then(() => lastEnd.get(step));
        if (end?.status === 'skipped') task.skip(`${step}: ${end.summary}`);
        else if (end) task.title = `${step}: ${end.summary}`;
      },
    })),
    { concurrent: false, exitOnError: true, rendererOptions: { collapseSkips: false } },
  );
  const lastEnd = new Map<string, Extract<SyncEvent, { type: 'step-end' }>>();
  let active = true;
  kernel.hooks.progress.tap('tty-display', (event) => {
    if (!active) return;
    if (event.type === 'step-progress')
      titles.get(event.step)?.(
        `${event.step}: ${event.done}${event.total ? `/${event.total}` : ''} ${event.detail ? `(${event.detail})` : ''}`.trimEnd(),
      );
    if (event.type === 'step-end') {
      lastEnd.set(event.step, event);
      ends.get(event.step)?.settle(event, event.status === 'failed' ? new Error(event.summary) : undefined);
    }
  });
  const running = list.run().catch(() => undefined);
  return {
    async finish(error) {
      active = false;
      // Steps the run never reached: a failure fails the current one, the rest are left out.
      for (const [step, end] of ends) if (!lastEnd.has(step)) end.settle(undefined, error ?? new Error('not run'));
      await running;
    },
  };
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  let settled = false;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return {
    promise,
    settle(_event, error) {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve();
    },
  };
}
