// A plugin list as the hook reads it (run-hook.ts, custom-agents.ts): one
// synchronous read, and nothing of the state-file helpers commands use.
import { readFileSync } from 'node:fs';
import type { PluginLayer } from '../../kernel/plugin-list.js';
import { isObject } from './hook-event.js';

/**
 * A plugin list read for the hook: synchronously, and a list that does not
 * parse counts as empty. Commands report it (and move it aside); a hook must not.
 */
export function listLayer(file: string, source: PluginLayer['source']): PluginLayer {
  let entries: string[] = [];
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const plugins = isObject(value) ? value.plugins : undefined;
    if (Array.isArray(plugins)) entries = plugins.filter((entry): entry is string => typeof entry === 'string');
  } catch {
    // missing or unreadable: no entries
  }
  return { source, file, entries };
}
