import { isObject, str } from './refreshing-file.js';

/**
 * The one reader of a ledger line's shape. Before issue 13 a line is the Agent
 * Trace record with tracer's members mixed in; after it, the record sits under
 * `record` beside `sha`, `ts`, `commit` and `trace_ids`. The integrator
 * replaces this with issue 13's shared reader.
 */
export function agentTraceRecord(line: Record<string, unknown>): Record<string, unknown> {
  return isObject(line.record) ? line.record : line;
}

export function ledgerCommit(line: Record<string, unknown>): string | undefined {
  const record = agentTraceRecord(line);
  const vcs = isObject(record.vcs) ? record.vcs : {};
  return str(line.commit) ?? str(record.commit) ?? str(vcs.revision);
}

export function ledgerTs(line: Record<string, unknown>): string | undefined {
  const record = agentTraceRecord(line);
  return str(line.ts) ?? str(record.timestamp) ?? str(record.ts);
}

/** `claude-code://session/<id>` → agent and conversation id (the id is URI-encoded in the url). */
export function parseConversationUrl(url: string | undefined): { agent: string; conversationId: string } | undefined {
  const match = url === undefined ? null : /^([a-z][a-z0-9+.-]*):\/\/[^/]+\/(.+)$/i.exec(url);
  if (!match) return undefined;
  try {
    return { agent: match[1]!, conversationId: decodeURIComponent(match[2]!) };
  } catch {
    return undefined;
  }
}

export type ContributorKind = 'ai' | 'human' | 'mixed';

export function contributorKind(contributor: unknown): ContributorKind | undefined {
  const type = isObject(contributor) ? contributor.type : undefined;
  return type === 'ai' || type === 'human' || type === 'mixed' ? type : undefined;
}
