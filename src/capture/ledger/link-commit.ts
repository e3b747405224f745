import { join } from 'node:path';
import { appendRecord, readRecords } from '../../store/jsonl.js';
import { isPlainObject } from '../../store/state-file.js';
import { attribute } from './attribute.js';
import { readAttributionState, recordCommit } from './attribution-state.js';
import { readChanges, readCommit } from './commit-diff.js';
import type { GitOptions } from './git-exec.js';
import { buildCommitLink, buildLedger, COMMIT_LINKS_FILE, LEDGERS_FILE, type CommitLink, type Ledger } from './ledger-record.js';
import { loggedProblems, subjectRedaction, type ProblemSink } from './link-subject.js';
import { writeLedgerNote } from './notes.js';
import { readWindow, rememberedAncestors, subtractClaims } from './trace-window.js';

export interface LinkRequest {
  projectDir: string;
  git: GitOptions;
  /** Any revision git understands; the hook passes HEAD. */
  rev: string;
  /** Set by rewrite-ledger: the commit that `rev` replaced. */
  rewrittenFrom?: string;
  /** Redaction problems met on the commit's subject; default: the project's hook-errors.log. */
  onProblem?: ProblemSink;
}

export interface LinkResult {
  ledger: Ledger;
  link: CommitLink;
  /** False when an identical row was already there (a re-run). */
  ledgerAppended: boolean;
  linkAppended: boolean;
}

/**
 * Attributes one commit and records it: the ledger (ledgers.jsonl and the git
 * note), the commit link, and the claims in attribution-state.json. Re-running
 * it for the same commit and traces appends nothing.
 */
export async function linkCommit(request: LinkRequest): Promise<LinkResult> {
  const { projectDir, git } = request;
  const info = await readCommit(request.rev, git);
  const changes = await readChanges(info, git);
  const state = await readAttributionState(projectDir);
  const replaced = request.rewrittenFrom === undefined ? undefined : state.commits[request.rewrittenFrom];
  const keep = new Set(replaced ? Object.keys(replaced.claims) : []);
  const window = await readWindow(projectDir, new Set(changes.added.keys()), state.window_start, keep);
  const ignore = new Set(request.rewrittenFrom === undefined ? [] : [request.rewrittenFrom]);
  if (window.length > 0) subtractClaims(window, await rememberedAncestors(info.commit, state, ignore, git));
  const attribution = attribute(changes, window);
  const ledger = buildLedger(info, attribution);
  // Logged under the hook that asked: only rewrite-ledger names the commit replaced.
  const onProblem = request.onProblem ?? loggedProblems(projectDir, request.rewrittenFrom === undefined ? 'post-commit' : 'post-rewrite');
  const kept = await subjectRedaction(projectDir, git, onProblem)(info.subject);
  const link = buildCommitLink(ledger, attribution, request.rewrittenFrom, info, kept);

  const ledgerAppended = await appendOnce(join(projectDir, LEDGERS_FILE), ledger, 'sha');
  const linkAppended = await appendOnce(join(projectDir, COMMIT_LINKS_FILE), link, 'id');
  await recordCommit(projectDir, {
    commit: info.commit,
    ts: info.ts,
    ledger_sha: ledger.sha,
    claims: attribution.claims,
    ...(request.rewrittenFrom === undefined ? {} : { replaces: request.rewrittenFrom }),
  });
  await writeLedgerNote(ledger, git);
  return { ledger, link, ledgerAppended, linkAppended };
}

/** Same content id, same row: appending it again would only duplicate it. */
export async function appendOnce(path: string, record: Record<string, unknown>, idMember: string): Promise<boolean> {
  const id = record[idMember];
  // Content ids are lowercase hex, written alike by every JSON writer: only lines holding it are parsed.
  const mayMatch = typeof id === 'string' && /^[0-9a-f]+$/.test(id) ? (line: string) => line.includes(id) : undefined;
  for await (const row of readRecords<unknown>(path, { mayMatch })) {
    if (isPlainObject(row) && row[idMember] === id) return false;
  }
  appendRecord(path, record);
  return true;
}
