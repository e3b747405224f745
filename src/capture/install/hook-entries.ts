// Adds and removes tracer's entries in an agent's hook settings, touching nothing
// else: a user's own hooks, matcher groups and other settings keep their values and
// their order. Our entries are found by their command (`tracer hook <agent> <event>`),
// so a second run updates them in place instead of adding duplicates. The
// `list` layout (named entries in a list) lives in hook-list.ts.
import { isPlainObject } from '../../store/state-file.js';
import type { SettingsInstall } from '../../core/agent.js';
import { hasTracerList, withoutTracerList, withTracerList } from './hook-list.js';

/** An agent whose hooks live in a settings file tracer merges into. */
export interface SettingsAgent {
  id: string;
  install: SettingsInstall;
}
import { parseAgentHookCommand, sameHookCommand } from './invocation.js';
import { invalid } from './json-file.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's settings file: any JSON at all
type Json = Record<string, any>;

export function withTracerHooks(settings: Json, path: string, agent: SettingsAgent, commandFor: (event: string) => string): Json {
  const value: Json = structuredClone(settings);
  const install = agent.install;
  if (install.layout === 'list') return withTracerList(withoutOldShape(value, path, agent), path, agent, commandFor);
  if (value.hooks === undefined) {
    for (const [key, member] of Object.entries(install.skeleton ?? {})) if (value[key] === undefined) value[key] = member;
    value.hooks = {};
  }
  const hooks = hooksObject(value, path);
  const wanted = new Set(install.events.map((hooked) => hooked.event));
  // Events an older tracer hooked that this one does not: drop ours there.
  for (const event of Object.keys(hooks)) if (!wanted.has(event)) removeOurs(hooks, event, agent);
  const commandMember = commandMemberOf(install);
  for (const { event, matcher } of install.events) {
    if (hooks[event] === undefined) hooks[event] = [];
    const list = eventList(hooks, event, path);
    const found = findOurs(list, agent, event);
    const command = commandFor(event);
    if (found.length === 0) {
      list.push(
        install.layout === 'flat'
          ? { ...(matcher ? { matcher } : {}), ...install.entryMembers, [commandMember]: command }
          : { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command }] },
      );
      continue;
    }
    const [first, ...duplicates] = found;
    if (!sameHookCommand(first!.entry[commandMember], command)) first!.entry[commandMember] = command;
    const keepsMatcher = install.layout === 'flat' || first!.group.hooks.length === 1;
    if (keepsMatcher && first!.group.matcher !== matcher) {
      if (matcher === undefined) delete first!.group.matcher;
      else first!.group.matcher = matcher;
    }
    for (const duplicate of duplicates) removeEntry(list, duplicate);
  }
  return value;
}

/** Settings without any of our entries; containers left empty by that go too. */
export function withoutTracerHooks(settings: Json, path: string, agent: SettingsAgent): Json {
  const value: Json = structuredClone(settings);
  if (agent.install.layout === 'list')
    return isPlainObject(value.hooks) ? withoutTracerHooks(value, path, oldShapeOf(agent)) : withoutTracerList(value, path, agent);
  if (value.hooks === undefined) return value;
  const hooks = hooksObject(value, path);
  let removed = false;
  for (const event of Object.keys(hooks)) removed = removeOurs(hooks, event, agent) || removed;
  if (removed && Object.keys(hooks).length === 0) delete value.hooks;
  return value;
}

export function hasTracerHooks(settings: Json, agent: SettingsAgent): boolean {
  if (agent.install.layout === 'list') return hasTracerList(settings, agent) || hasTracerHooks(settings, oldShapeOf(agent));
  if (!isPlainObject(settings.hooks)) return false;
  return Object.entries(settings.hooks).some(([event, list]) => Array.isArray(list) && findOurs(list, agent, event).length > 0);
}

/**
 * A `list` file that an older tracer wrote in the flat shape (`{hooks: {event:
 * [{command}]}}`, which Kiro CLI 3 does not read): our entries go, so the list
 * can take their place. Another's entries in that shape are left for the user to
 * move: tracer does not guess what they meant.
 */
function withoutOldShape(value: Json, path: string, agent: SettingsAgent): Json {
  if (!isPlainObject(value.hooks)) return value;
  const stripped = withoutTracerHooks(value, path, oldShapeOf(agent));
  if (stripped.hooks !== undefined)
    throw invalid(
      path,
      `has a "hooks" object (entries for ${Object.keys(stripped.hooks).join(', ') || 'no event'}) where this agent reads a list of named hooks`,
    );
  return stripped;
}

function oldShapeOf(agent: SettingsAgent): SettingsAgent {
  return { id: agent.id, install: { ...agent.install, layout: 'flat', commandMember: 'command' } };
}

interface Found {
  /** The matcher group (grouped shape) or the list entry itself (flat shape). */
  group: Json;
  entry: Json;
}

function findOurs(list: unknown[], agent: SettingsAgent, event: string): Found[] {
  const found: Found[] = [];
  for (const item of list) {
    if (!isPlainObject(item)) continue;
    const entries = agent.install.layout === 'flat' ? [item] : Array.isArray(item.hooks) ? item.hooks : [];
    const commandMember = commandMemberOf(agent.install);
    for (const entry of entries) {
      const parsed = isPlainObject(entry) ? parseAgentHookCommand(entry[commandMember]) : undefined;
      if (parsed?.agent === agent.id && parsed.event === event) found.push({ group: item, entry: entry as Json });
    }
  }
  return found;
}

function removeEntry(list: unknown[], { group, entry }: Found): void {
  if (group === entry) {
    list.splice(list.indexOf(group), 1);
    return;
  }
  group.hooks.splice(group.hooks.indexOf(entry), 1);
  if (group.hooks.length === 0) list.splice(list.indexOf(group), 1);
}

function removeOurs(hooks: Json, event: string, agent: SettingsAgent): boolean {
  // Not ours to judge: a member we never wrote stays as it is, even if malformed.
  const list = hooks[event];
  if (!Array.isArray(list)) return false;
  const found = findOurs(list, agent, event);
  for (const one of found) removeEntry(list, one);
  if (found.length > 0 && list.length === 0) delete hooks[event];
  return found.length > 0;
}

function hooksObject(value: Json, path: string): Json {
  if (!isPlainObject(value.hooks)) throw invalid(path, 'has a "hooks" member that is not an object');
  return value.hooks;
}

function eventList(hooks: Json, event: string, path: string): unknown[] {
  const list = hooks[event];
  if (!Array.isArray(list)) throw invalid(path, `has a "hooks.${event}" member that is not a list`);
  return list;
}

/** The member of a flat entry that holds its command line; grouped entries always say `command`. */
function commandMemberOf(install: SettingsInstall): string {
  return install.layout === 'flat' ? (install.commandMember ?? 'command') : 'command';
}
