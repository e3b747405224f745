// The JSON bodies of the sync routes (wire contract "Upload, per family", "Pull,
// per family", "whoami"): built without parsing what is already JSON, and
// answers checked for the shape the engine relies on.
import { ExitCode, TracerError } from '../core/errors.js';
import { itemSpans } from '../core/json-spans.js';
import type { Identity, PageAnswer, PageQuery, SendAnswer } from '../kernel/transport.js';

/** `{"items":[...]}` from each item's own JSON text: a batch of stored lines is never parsed and serialized again. */
export function uploadBody(texts: readonly string[]): string {
  return `{"items":[${texts.join(',')}]}`;
}

/** `{received, inserted, duplicates}`, leniently: a count the service leaves out is none. */
export function sendAnswerOf(value: unknown): SendAnswer {
  const answer = (typeof value === 'object' && value !== null ? value : {}) as Partial<Record<keyof SendAnswer, unknown>>;
  return {
    received: Number(answer.received ?? 0),
    inserted: Number(answer.inserted ?? 0),
    duplicates: Number(answer.duplicates ?? 0),
    // A service that forgot some of the items says how many (issue 31); older ones never do.
    ...(answer.forgotten !== undefined ? { forgotten: Number(answer.forgotten) } : {}),
  };
}

export function pageParameters(query: PageQuery): Record<string, string | number | undefined> {
  return { after: query.after, limit: query.limit, since: query.since };
}

/** Who answered, for the sentence of a malformed answer. */
export interface Speaker {
  name: string;
  url: string;
}

/**
 * `{items, next_cursor, has_more}`, checked. With `withTexts`, each row's own
 * text sliced from the page (core/json-spans.ts), so that checking its id does
 * not serialize it again; left out when the spans do not match the items.
 */
export function pageOf(value: unknown, text: string, withTexts: boolean, speaker: Speaker, path: string): PageAnswer {
  const page = value as { items?: unknown; next_cursor?: unknown; has_more?: unknown } | null;
  const ok =
    typeof page === 'object' &&
    page !== null &&
    Array.isArray(page.items) &&
    (page.next_cursor === null || page.next_cursor === undefined || typeof page.next_cursor === 'string');
  if (!ok) {
    throw new TracerError(
      'malformed_response',
      `Remote "${speaker.name}" answered GET ${path} without an items list; check that ${speaker.url} points at a tracer service.`,
      { exitCode: ExitCode.network },
    );
  }
  const items = page.items as unknown[];
  const answer: PageAnswer = { items, next: (page.next_cursor as string | null | undefined) ?? null, hasMore: page.has_more === true };
  const spans = withTexts ? itemSpans(text) : undefined;
  if (spans?.length === items.length) answer.texts = spans.map(([start, end]) => text.slice(start, end));
  return answer;
}

/** whoami's answer, checked (spec §4.4); what it means for the remote's org and project is the whoami plugin's call. */
export function identityOf(value: unknown, speaker: Speaker, path: string): Identity {
  const whoami = value as Partial<Identity> | null;
  if (
    typeof whoami !== 'object' ||
    whoami === null ||
    typeof whoami.org_slug !== 'string' ||
    (whoami.scope !== 'org' && whoami.scope !== 'project')
  ) {
    throw new TracerError(
      'malformed_response',
      `Remote "${speaker.name}" answered ${path} without org_slug and scope; check that ${speaker.url} points at a tracer service.`,
      { exitCode: ExitCode.network },
    );
  }
  return {
    org_slug: whoami.org_slug,
    project_slug: typeof whoami.project_slug === 'string' ? whoami.project_slug : null,
    scope: whoami.scope,
    token_name: whoami.token_name,
  };
}
