// The project page's filters (agent, model, dates, free text) and paging.
// Dates compare as ISO strings; a bare `to` date takes in its whole day.
import type { ListQuery, Page } from '../data-source.js';
import type { CommitHeader } from './git-read.js';
import type { CommitAggregate } from './ledger-index.js';
import type { SessionAggregate } from './trace-index.js';

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

export function pageOf<T>(items: readonly T[], query: ListQuery): Page<T> {
  const offset = Math.max(0, Math.floor(query.offset ?? 0));
  const limit = Math.min(PAGE_MAX, Math.max(1, Math.floor(query.limit ?? PAGE_DEFAULT)));
  return { total: items.length, offset, items: items.slice(offset, offset + limit) };
}

export function matchesSession(session: SessionAggregate, query: ListQuery, summary: string | null): boolean {
  if (query.agent && session.agent !== query.agent) return false;
  if (query.model && !session.models.has(query.model)) return false;
  if (!inDates(session.firstTs, session.lastTs, query)) return false;
  if (!query.q) return true;
  const needle = query.q.toLowerCase();
  const haystack = [session.conversationId, session.agent, summary ?? '', ...session.models, ...session.files];
  return haystack.some((text) => text.toLowerCase().includes(needle));
}

export function matchesCommit(commit: CommitAggregate, query: ListQuery, header: CommitHeader | undefined): boolean {
  if (query.agent && !commit.agents.includes(query.agent)) return false;
  if (query.model && !commit.models.includes(query.model)) return false;
  const ts = header?.ts || commit.ts || '';
  if ((query.from || query.to) && (ts === '' || !inDates(ts, ts, query))) return false;
  if (!query.q) return true;
  const needle = query.q.toLowerCase();
  const haystack = [commit.sha, header?.subject ?? '', header?.author ?? '', ...commit.paths];
  return haystack.some((text) => text.toLowerCase().includes(needle));
}

function inDates(first: string, last: string, query: ListQuery): boolean {
  if (query.from && last < query.from) return false;
  if (query.to && first > (query.to.length <= 10 ? `${query.to}\uffff` : query.to)) return false;
  return true;
}
