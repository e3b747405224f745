// Reading which conversations a record names, for the families' privacy
// descriptions (kernel/families.ts FamilyPrivacy): plain members, and the
// conversation URLs summaries and ledgers carry (`<agent>://session/<id>`,
// `cursor://conversation/<id>`, capture/hook/summary.ts).

/** A string member, or each string of a string-array member; empty strings are no id. */
export function stringMember(record: Record<string, unknown>, member: string): string[] {
  const value = record[member];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value)) return [...new Set(value.filter((item): item is string => typeof item === 'string' && item !== ''))];
  return [];
}

const CONVERSATION_URL = /^[a-z0-9][a-z0-9-]*:\/\/(?:session|conversation)\/([^/?#]+)$/;

/** The conversation ids of tracer's conversation URLs; anything else is skipped. */
export function conversationIdsOfUrls(urls: readonly unknown[]): string[] {
  const ids = new Set<string>();
  for (const url of urls) {
    const encoded = typeof url === 'string' ? CONVERSATION_URL.exec(url)?.[1] : undefined;
    if (encoded === undefined) continue;
    try {
      ids.add(decodeURIComponent(encoded));
    } catch {
      // a malformed escape names no conversation
    }
  }
  return [...ids];
}
