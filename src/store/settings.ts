// The keys `tracer config` and `tracer set global` may read and write: one table,
// so an unknown key is refused with the list of known ones.
import { ExitCode, TracerError } from '../core/errors.js';

export type SettingScope = 'project' | 'global';
export type SettingType = 'string' | 'boolean' | 'string-list';

export interface Setting {
  key: string;
  scope: SettingScope;
  type: SettingType;
  /** Where the value lives in its JSON file. */
  path: string[];
  description: string;
  /** Shown masked, never raw. */
  secret?: boolean;
  /** Printed after the value is set. */
  hint?: string;
}

export const LEGACY_TOKEN_HINT =
  'This slot is kept for old scripts only: push, pull and sync never read it. Bind the token to a remote instead: tracer remote set-token <name> --token <TOKEN>';

export const SETTINGS: readonly Setting[] = [
  { key: 'notes', scope: 'project', type: 'string', path: ['notes'], description: 'Free-form notes about this project.' },
  { key: 'summary', scope: 'project', type: 'string', path: ['summary'], description: 'One-paragraph summary of this project.' },
  {
    key: 'remote.default',
    scope: 'project',
    type: 'string',
    path: ['remote', 'default'],
    description: 'Remote used when --remote is not given.',
  },
  {
    key: 'plugins',
    scope: 'project',
    type: 'string-list',
    path: ['plugins'],
    description: 'Plugins this project adds (module paths) or switches off (!name), comma-separated or a JSON array.',
  },
  {
    key: 'commit_summary',
    scope: 'project',
    type: 'boolean',
    path: ['commit_summary'],
    description: 'Print a one-line AI/human bar on stderr after each commit (overrides the global setting).',
  },
  {
    key: 'redact.pii',
    scope: 'project',
    type: 'boolean',
    path: ['redact', 'pii'],
    description: 'Also redact e-mail addresses and phone numbers from stored transcripts and summaries (overrides the global setting).',
  },
  {
    key: 'capture_detached_edits',
    scope: 'global',
    type: 'boolean',
    path: ['capture_detached_edits'],
    description: 'Record edits made outside any git repository under detached/.',
  },
  {
    key: 'telemetry.enabled',
    scope: 'global',
    type: 'boolean',
    path: ['telemetry', 'enabled'],
    description: 'Whether anonymous usage telemetry may be sent.',
  },
  {
    key: 'auth-token',
    scope: 'global',
    type: 'string',
    path: ['auth_token'],
    description: 'Legacy global token slot (spec §5.2 rule 4); never read by sync.',
    secret: true,
    hint: LEGACY_TOKEN_HINT,
  },
  {
    key: 'commit_summary',
    scope: 'global',
    type: 'boolean',
    path: ['commit_summary'],
    description: 'Print a one-line AI/human bar on stderr after each commit, in every project that does not say otherwise.',
  },
  {
    key: 'redact.pii',
    scope: 'global',
    type: 'boolean',
    path: ['redact', 'pii'],
    description: 'Also redact e-mail addresses and phone numbers, in every project that does not say otherwise.',
  },
];

/** Finds a setting; `global.<key>` is accepted as a spelling of a global key. */
export function findSetting(key: string, scope: SettingScope): Setting {
  const bare = key.startsWith('global.') ? key.slice('global.'.length) : key;
  const wanted: SettingScope = key.startsWith('global.') ? 'global' : scope;
  const setting = SETTINGS.find((candidate) => candidate.key === bare && candidate.scope === wanted);
  if (setting) return setting;
  const known = SETTINGS.filter((candidate) => candidate.scope === wanted).map((candidate) => candidate.key);
  const elsewhere = SETTINGS.find((candidate) => candidate.key === bare);
  const tip = elsewhere
    ? ` "${bare}" is a ${elsewhere.scope} setting: ${elsewhere.scope === 'global' ? 'add --global' : 'drop --global'}.`
    : '';
  throw new TracerError(
    'unknown_setting',
    `"${key}" is not a known ${wanted} setting; known ${wanted} settings: ${known.join(', ')}.${tip}`,
    {
      exitCode: ExitCode.usage,
    },
  );
}

export function parseSettingValue(setting: Setting, raw: string): unknown {
  switch (setting.type) {
    case 'boolean': {
      const normalized = raw.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(normalized)) return true;
      if (['false', '0', 'no', 'off'].includes(normalized)) return false;
      throw new TracerError('invalid_setting_value', `${setting.key} takes true or false, not "${raw}".`, { exitCode: ExitCode.usage });
    }
    case 'string-list': {
      const list = raw.trim().startsWith('[')
        ? parseJsonList(setting, raw)
        : raw
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean);
      return list;
    }
    case 'string':
      if (setting.secret && (raw === '' || /[\s\p{Cc}]/u.test(raw))) {
        throw new TracerError('invalid_token', `${setting.key} must be a non-empty token without spaces or control characters.`, {
          exitCode: ExitCode.usage,
        });
      }
      return raw;
  }
}

function parseJsonList(setting: Setting, raw: string): string[] {
  try {
    const value: unknown = JSON.parse(raw);
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  } catch {
    // fall through to the error below
  }
  throw new TracerError('invalid_setting_value', `${setting.key} takes a JSON array of strings or a comma-separated list, not ${raw}.`, {
    exitCode: ExitCode.usage,
  });
}

export function getPath(object: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = object;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

export function setPath(object: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let parent = object;
  for (const part of path.slice(0, -1)) {
    const next = parent[part];
    parent = (parent[part] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
  }
  parent[path[path.length - 1]!] = value;
}

/** Removes the value and any parent object it leaves empty. Returns whether something was removed. */
export function unsetPath(object: Record<string, unknown>, path: readonly string[]): boolean {
  const [head, ...rest] = path;
  if (head === undefined || !(head in object)) return false;
  if (rest.length === 0) {
    delete object[head];
    return true;
  }
  const child = object[head];
  if (typeof child !== 'object' || child === null) return false;
  const removed = unsetPath(child as Record<string, unknown>, rest);
  if (removed && Object.keys(child).length === 0) delete object[head];
  return removed;
}
