// Where a family's records live on this machine: its own store when its plugin
// brings one, else the append-only JSONL file its definition names.
import type { RegisteredFamily } from '../kernel/families.js';
import type { FamilyStore } from '../kernel/types.js';
import { jsonlFamilyStore } from './jsonl-family-store.js';

export function storeOf(family: RegisteredFamily, projectDir: string): FamilyStore {
  return family.store ? family.store(projectDir, family) : jsonlFamilyStore(projectDir, family);
}
