// The `list` layout of hook settings: a versioned file whose `hooks` is a list
// of named entries, `{name, trigger, matcher?, action: {type: "command",
// command}}` (Kiro's `.kiro/hooks/<name>.json`, schema "v1"). Like the other
// layouts, our entries are found by their command, so a second run updates them
// in place and uninstall takes only them; the user's entries keep their place.
import { isPlainObject } from '../../store/state-file.js';
import { parseAgentHookCommand, sameHookCommand } from './invocation.js';
import { invalid } from './json-file.js';
import type { SettingsAgent } from './hook-entries.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's settings file: any JSON at all
type Json = Record<string, any>;

/** `value.hooks` gets tracer's entries for every hooked event, after the user's. */
export function withTracerList(value: Json, path: string, agent: SettingsAgent, commandFor: (event: string) => string): Json {
  if (value.hooks === undefined) {
    for (const [key, member] of Object.entries(agent.install.skeleton ?? {})) if (value[key] === undefined) value[key] = member;
    value.hooks = [];
  }
  const list = hookList(value, path);
  const wanted = new Set(agent.install.events.map((hooked) => hooked.event));
  // Triggers an older tracer hooked that this one does not: drop ours there.
  for (const entry of ours(list, agent)) if (!wanted.has(entry.trigger)) list.splice(list.indexOf(entry), 1);
  for (const { event, matcher } of agent.install.events) {
    const command = commandFor(event);
    const [first, ...duplicates] = ours(list, agent).filter((entry) => entry.trigger === event);
    if (first === undefined) {
      list.push({
        name: entryName(agent.id, event),
        trigger: event,
        ...(matcher ? { matcher } : {}),
        action: { type: 'command', command },
      });
      continue;
    }
    if (!sameHookCommand(first.action.command, command)) first.action.command = command;
    if (first.matcher !== matcher) {
      if (matcher === undefined) delete first.matcher;
      else first.matcher = matcher;
    }
    for (const duplicate of duplicates) list.splice(list.indexOf(duplicate), 1);
  }
  return value;
}

/** `value` without our entries; a list left empty by that goes too. */
export function withoutTracerList(value: Json, path: string, agent: SettingsAgent): Json {
  if (value.hooks === undefined) return value;
  const list = hookList(value, path);
  const found = ours(list, agent);
  for (const entry of found) list.splice(list.indexOf(entry), 1);
  if (found.length > 0 && list.length === 0) delete value.hooks;
  return value;
}

export function hasTracerList(value: Json, agent: SettingsAgent): boolean {
  return Array.isArray(value.hooks) && ours(value.hooks, agent).length > 0;
}

function ours(list: unknown[], agent: SettingsAgent): Json[] {
  return list.filter((entry): entry is Json => {
    if (!isPlainObject(entry) || !isPlainObject(entry.action)) return false;
    const parsed = parseAgentHookCommand(entry.action.command);
    return parsed?.agent === agent.id && parsed.event === entry.trigger;
  });
}

function hookList(value: Json, path: string): unknown[] {
  if (!Array.isArray(value.hooks)) throw invalid(path, 'has a "hooks" member that is not a list');
  return value.hooks;
}

/** `tracer-post-tool-use`: the kebab-case names Kiro's own examples give their hooks. */
function entryName(agent: string, event: string): string {
  return `tracer-${agent}-${event.replace(/(?<=[a-z0-9])(?=[A-Z])/g, '-').toLowerCase()}`;
}
