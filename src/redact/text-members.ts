// Which members of a record hold text from a conversation: those its family
// names (a summary's `summary`) and, where the family says its other members are
// free (`text.untyped`), every member it does not type. The wire contract fixes
// only a summary's identifiers, so an uploader may put its text under any name:
// the gate and a push must read all of it, not the one name tracer writes.
import type { FamilyDefinition } from '../kernel/families.js';
import { REDACTED_MEMBER } from './mark.js';

export function textMembers(family: FamilyDefinition, record: Record<string, unknown>): string[] {
  const named = family.text?.members ?? [];
  if (!family.text?.untyped) return [...named];
  const typed = family.members ?? {};
  const free = Object.keys(record).filter((key) => !Object.hasOwn(typed, key) && key !== REDACTED_MEMBER && !named.includes(key));
  return [...named, ...free];
}
