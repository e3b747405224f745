// Help that depends on the plugins: push and pull list the families the loaded
// plugins registered (custom ones included), not a list written into the command.
import type { CommandClass, Usage } from 'clipanion';
import type { Kernel } from '../kernel/kernel.js';
import type { TracerContext } from './context.js';

/** A command class whose usage is completed from the kernel the invocation booted. */
export interface PluginAwareCommand {
  usageWith(kernel: Kernel): Usage;
}

export function withPluginUsage(command: CommandClass<TracerContext>, kernel: Kernel): CommandClass<TracerContext> {
  const aware = command as CommandClass<TracerContext> & Partial<PluginAwareCommand>;
  if (typeof aware.usageWith !== 'function') return command;
  const usage = aware.usageWith(kernel);
  // A subclass per invocation: clipanion reads `usage` from the class it registered.
  return class extends (command as unknown as new () => object) {
    static usage = usage;
  } as unknown as CommandClass<TracerContext>;
}

/** `traces, ledgers, ..., conversations (follows traces), review-notes (plugin review-notes)`. */
export function describeFamilies(kernel: Kernel): string {
  return kernel.families
    .map((family) => {
      const notes = [family.follows && `follows ${family.follows}`, family.plugin !== family.name && `plugin ${family.plugin}`].filter(
        Boolean,
      );
      return notes.length > 0 ? `\`${family.name}\` (${notes.join(', ')})` : `\`${family.name}\``;
    })
    .join(', ');
}
