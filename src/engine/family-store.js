import { jsonlFamilyStore } from './jsonl-family-store.js';
export function storeOf(family, projectDir) {
  return family.store ? family.store(projectDir, family) : jsonlFamilyStore(projectDir, family);
}
