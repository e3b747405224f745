import type { CommandClass } from 'clipanion';
import type { TracerContext } from '../cli/context.js';
import { ConfigGetCommand } from './config/get.js';
import { ConfigSetCommand } from './config/set.js';
import { InitCommand } from './init.js';

/**
 * Commands that belong to no plugin. A plugin's own commands arrive through its
 * `commands` array (see kernel.ts), so this list never names a family.
 */
export const CORE_COMMANDS: CommandClass<TracerContext>[] = [
  InitCommand,
  ConfigGetCommand,
  ConfigSetCommand,
];
