import { ledgerCommitOf, ledgerRecordOf } from '../../capture/ledger/ledger-line.js';
import { isObject, str } from './refreshing-file.js';

// Ledger lines as the viewer reads them: the record and commit through capture's
// one reader of both ledger shapes (src/capture/ledger/ledger-line.ts).

export function agentTraceRecord(line: Record<string, unknown>): Record<string, unknown> {
  return (ledgerRecordOf(line) as unknown as Record<string, unknown> | undefined) ?? {};
}

export function ledgerCommit(line: Record<string, unknown>): string | undefined {
  return ledgerCommitOf(line);
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
