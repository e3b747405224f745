// A reconciled commit records its claims in attribution-state.json, as the
// post-commit hook does for a commit it attributes (link-commit.ts): which
// trace lines its ledger gives to an agent. The post-commit hook takes an
// ancestor's claimed lines away from the traces a later commit may draw on, and
// an amend or a rebase of a commit releases its claims; so once a squash (or a
// rebased copy) is recorded, a later commit on main, or a rewrite of the
// squash itself, behaves as for any commit recorded at commit time. Without
// it, the branch's commits (no ancestors of main after a squash) would guard
// nothing, and a person's later line on main equal to an agent's would be the
// agent's again.
//
// The claims follow the ledger, not a new attribution: each agent line of the
// reconciled ledger claims one copy of its text from one of the traces its
// conversation names (`related`), the most recent first as in attribute.ts,
// under the path the trace wrote (the line's path, or the one it had on the
// branch). A trace this clone does not have guards nothing here and is not
// claimed: a teammate who only pulled ledgers records the commit with no claims.
import type { CommitInfo } from '../../capture/ledger/commit-diff.js';
import { compare } from '../../capture/ledger/attribute.js';
import { recordCommits, type CommitClaims } from '../../capture/ledger/attribution-state.js';
import type { Ledger, RecordLine } from '../../capture/ledger/ledger-record.js';
import { readWindow, type WindowTrace } from '../../capture/ledger/trace-window.js';
import { lineHash } from '../../capture/trace-record.js';

export interface ReconciledLedger {
  info: CommitInfo;
  ledger: Ledger;
  /** The lines the ledger was built from, with their authors. */
  files: ReadonlyMap<string, readonly RecordLine[]>;
}

/** Records every reconciled commit in attribution-state.json (one write), with the claims its ledger makes. */
export async function recordReconciledClaims(projectDir: string, reconciled: readonly ReconciledLedger[]): Promise<void> {
  if (reconciled.length === 0) return;
  const wanted = new Set(reconciled.flatMap(({ ledger }) => ledger.trace_ids));
  const paths = new Set<string>();
  for (const { files } of reconciled)
    for (const [path, lines] of files) {
      paths.add(path);
      for (const line of lines) if (line.sourcePath !== undefined) paths.add(line.sourcePath);
    }
  // Every trace the ledgers name, however old: the window start only bounds what a new commit may draw on.
  const traces = wanted.size === 0 ? [] : (await readWindow(projectDir, paths, undefined, wanted)).filter((trace) => wanted.has(trace.id));
  await recordCommits(
    projectDir,
    reconciled.map(({ info, ledger, files }) => ({
      commit: info.commit,
      ts: info.ts,
      ledger_sha: ledger.sha,
      claims: claimsOf(files, traces),
    })),
  );
}

/** The trace lines a ledger's agent lines use: per line, one unclaimed copy in the most recent trace its conversation names that holds it. */
export function claimsOf(files: ReadonlyMap<string, readonly RecordLine[]>, traces: readonly WindowTrace[]): CommitClaims['claims'] {
  const byId = new Map(traces.map((trace) => [trace.id, trace]));
  // What is left of each trace's lines for this commit: trace id → path → hash → count.
  const used = new Map<string, number>();
  const claims: CommitClaims['claims'] = {};
  for (const [path, lines] of [...files].sort(([a], [b]) => compare(a, b))) {
    for (const line of lines) {
      if (line.blank || !line.author || line.author.traceIds.length === 0) continue;
      const hash = lineHash(line.text);
      const candidates = line.author.traceIds
        .map((id) => byId.get(id))
        .filter((trace): trace is WindowTrace => trace !== undefined)
        .sort((a, b) => time(b) - time(a) || compare(a.id, b.id));
      const names = line.sourcePath === undefined || line.sourcePath === path ? [path] : [path, line.sourcePath];
      let claimed = false;
      for (const trace of candidates) {
        for (const name of names) {
          const key = `${trace.id}\u0000${name}\u0000${hash}`;
          if ((trace.lines.get(name)?.get(hash) ?? 0) - (used.get(key) ?? 0) <= 0) continue;
          used.set(key, (used.get(key) ?? 0) + 1);
          const perPath = ((claims[trace.id] ??= {})[name] ??= {});
          perPath[hash] = (perPath[hash] ?? 0) + 1;
          claimed = true;
          break;
        }
        if (claimed) break;
      }
    }
  }
  return claims;
}

function time(trace: WindowTrace): number {
  const millis = Date.parse(trace.ts);
  return Number.isNaN(millis) ? -Infinity : millis;
}
