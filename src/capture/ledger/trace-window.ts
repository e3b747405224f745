// The traces a commit may draw on: every trace row that wrote one of the
// commit's paths, recorded after the window start, with the lines that the
// commit's ancestors already claimed taken away. Time is not used otherwise:
// an agent's edit left unstaged by one commit keeps its credit for the next,
// and the hook's clock never has to agree with git's.
import { join } from 'node:path';
import type { TraceRecord } from '../trace-record.js';
import { readRecords } from '../../store/jsonl.js';
import { isPlainObject } from '../../store/state-file.js';
import type { AttributionState, CommitClaims } from './attribution-state.js';
import { runGit, type GitOptions } from './git-exec.js';

export interface WindowTrace {
  id: string;
  ts: string;
  agent: string;
  conversation_id?: string;
  model?: string;
  /** path → line hash → how many of the trace's lines with that hash are still unclaimed. */
  lines: Map<string, Map<string, number>>;
}

export const TRACES_FILE = 'traces.jsonl';

export async function readWindow(
  projectDir: string,
  paths: ReadonlySet<string>,
  windowStart: string | undefined,
  /** Traces kept whatever their age: those the old ledger of a rewritten commit used. */
  keep: ReadonlySet<string> = new Set(),
): Promise<WindowTrace[]> {
  const start = windowStart === undefined ? undefined : Date.parse(windowStart);
  const traces = new Map<string, WindowTrace>();
  for await (const row of readRecords<unknown>(join(projectDir, TRACES_FILE), { mayMatch: mentionsAny(paths) })) {
    const trace = windowTrace(row, paths);
    if (!trace || traces.has(trace.id)) continue;
    if (start !== undefined && !(Date.parse(trace.ts) > start) && !keep.has(trace.id)) continue;
    traces.set(trace.id, trace);
  }
  return [...traces.values()];
}

/**
 * Every commit reads the whole traces.jsonl, so most lines are ruled out before
 * parsing: a row can only touch a path whose last segment it contains. Segments
 * of [A-Za-z0-9._-] look the same in any JSON writer's output; with any other
 * character in some path (it could be escaped), every line is parsed.
 */
function mentionsAny(paths: ReadonlySet<string>): ((line: string) => boolean) | undefined {
  const needles: string[] = [];
  for (const path of paths) {
    const segment = path.slice(path.lastIndexOf('/') + 1);
    if (!/^[A-Za-z0-9._-]+$/.test(segment)) return undefined;
    needles.push(segment);
  }
  return (line) => needles.some((needle) => line.includes(needle));
}

/** The part of a trace row that touches `paths`; undefined for rows that touch none or are not trace rows. */
function windowTrace(row: unknown, paths: ReadonlySet<string>): WindowTrace | undefined {
  if (!isPlainObject(row) || typeof row.id !== 'string' || typeof row.ts !== 'string' || !Array.isArray(row.files)) return undefined;
  const record = row as Partial<TraceRecord>;
  const lines = new Map<string, Map<string, number>>();
  for (const file of record.files ?? []) {
    if (!isPlainObject(file) || typeof file.path !== 'string' || !paths.has(file.path) || !Array.isArray(file.line_hashes)) continue;
    const counts = lines.get(file.path) ?? new Map<string, number>();
    for (const hash of file.line_hashes) if (typeof hash === 'string') counts.set(hash, (counts.get(hash) ?? 0) + 1);
    lines.set(file.path, counts);
  }
  if (lines.size === 0) return undefined;
  return {
    id: record.id!,
    ts: record.ts!,
    agent: typeof record.agent === 'string' ? record.agent : 'unknown',
    ...(typeof record.conversation_id === 'string' && record.conversation_id !== '' ? { conversation_id: record.conversation_id } : {}),
    ...(typeof record.model === 'string' && record.model !== '' ? { model: record.model } : {}),
    lines,
  };
}

/**
 * Which remembered commits are ancestors of `commit`. One rev-list walk back to
 * the oldest of them (a day earlier, for clock skew between committers) instead
 * of one git call per commit.
 */
export async function rememberedAncestors(
  commit: string,
  state: AttributionState,
  ignore: ReadonlySet<string>,
  git: GitOptions,
): Promise<CommitClaims[]> {
  const remembered = Object.entries(state.commits).filter(([sha]) => sha !== commit && !ignore.has(sha));
  if (remembered.length === 0) return [];
  const oldest = Math.min(...remembered.map(([, claims]) => Date.parse(claims.ts)).filter(Number.isFinite));
  const since = Number.isFinite(oldest) ? [`--max-age=${Math.floor(oldest / 1000) - 86_400}`] : [];
  const reachable = new Set((await runGit(['rev-list', ...since, commit, '--'], git)).split('\n'));
  return remembered.filter(([sha]) => reachable.has(sha)).map(([, claims]) => claims);
}

/** Takes the ancestors' claims away from the traces' unclaimed lines. */
export function subtractClaims(traces: readonly WindowTrace[], claimed: readonly CommitClaims[]): void {
  const byId = new Map(traces.map((trace) => [trace.id, trace]));
  for (const { claims } of claimed) {
    for (const [traceId, files] of Object.entries(claims)) {
      const trace = byId.get(traceId);
      if (!trace) continue;
      for (const [path, hashes] of Object.entries(files)) {
        const counts = trace.lines.get(path);
        if (!counts) continue;
        for (const [hash, used] of Object.entries(hashes)) {
          const left = (counts.get(hash) ?? 0) - used;
          if (left > 0) counts.set(hash, left);
          else counts.delete(hash);
        }
      }
    }
  }
}
