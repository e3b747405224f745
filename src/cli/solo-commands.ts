import type { CommandClass } from 'clipanion';
import type { TracerContext } from './context.js';

/**
 * Commands that scripts run often and that must start fast (a no-op push is
 * measured against `tracer --version`, see BENCHMARKS.md): each loads only its
 * own module instead of commands/index.js and every command behind it (see
 * BENCHMARKS.md, "Solo commands"). Any other first word loads them all.
 */
export const SOLO_COMMANDS: Readonly<Record<string, () => Promise<CommandClass<TracerContext>>>> = {
  push: async () => (await import('../commands/push.js')).PushCommand,
  pull: async () => (await import('../commands/pull.js')).PullCommand,
  sync: async () => (await import('../commands/sync.js')).SyncCommand,
  status: async () => (await import('../commands/status.js')).StatusCommand,
  // Read-only attribution views: blame is measured against git blame itself (BENCHMARKS.md).
  blame: async () => (await import('../commands/blame.js')).BlameCommand,
  show: async () => (await import('../commands/show.js')).ShowCommand,
  stats: async () => (await import('../commands/stats.js')).StatsCommand,
};

/** The core command classes to register for this command line. */
export async function coreCommandsFor(argv: readonly string[]): Promise<CommandClass<TracerContext>[]> {
  const solo = Object.hasOwn(SOLO_COMMANDS, argv[0] ?? '') ? SOLO_COMMANDS[argv[0]!] : undefined;
  if (solo) return [await solo()];
  return (await import('../commands/index.js')).CORE_COMMANDS;
}
