import { jsonlFamilyStore } from './jsonl-family-store.js';
import type { FamilyDefinition } from '../kernel/families.js';
import type { FamilyStore } from '../kernel/types.js';

/**
 * How push and pull treat a family, beside its definition: data a family plugin
 * passes to `registerFamily`, with defaults for a plain JSONL family.
 */
export interface FamilySyncInput {
  /** Its list in sync-state.json `synced` (default `<name>_ids`, dashes as underscores). */
  manifestKey?: string;
  /** A family that runs whenever this one is selected with `--only` (e.g. what follows traces). */
  follows?: string;
  /** Its local storage; default: the JSONL file of `definition.file`. */
  store?: (projectDir: string, definition: FamilyDefinition) => FamilyStore;
}

export interface FamilySync {
  manifestKey: string;
  follows?: string;
  store(projectDir: string): FamilyStore;
}

export function familySyncWithDefaults(definition: FamilyDefinition, input: FamilySyncInput): FamilySync {
  const manifestKey = input.manifestKey ?? `${definition.name.replace(/-/g, '_')}_ids`;
  if (!/^[a-z][a-z0-9_]*$/.test(manifestKey))
    throw new Error(`family "${definition.name}" manifest key "${manifestKey}" must be snake_case`);
  const make = input.store ?? jsonlFamilyStore;
  return { manifestKey, follows: input.follows, store: (projectDir) => make(projectDir, definition) };
}
