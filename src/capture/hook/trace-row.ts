import { readFileSync, statSync } from 'node:fs';
import { dirname, basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { withContentId } from '../../core/content-id.js';
import type { TraceRecord, TracedFile } from '../trace-record.js';
import { realPath, type Destination } from './destination.js';
import type { FileWrite, HookEvent, WrittenFragment } from './hook-event.js';
import { tracedFile } from './written-lines.js';

export const TRACES_FILE = 'traces.jsonl';
/** Files bigger than this are not read back: their written lines count by the fragments alone. */
const READ_BACK_CAP_BYTES = 32 * 1024 * 1024;

/** The event's row of traces.jsonl: its written lines read back from the files as they stand now. */
export function traceRow(destination: Destination, event: HookEvent, ts: string, cwd: string): TraceRecord {
  const files = tracedFiles(destination, event.writes, cwd);
  const row: Record<string, unknown> = { id: '', ts, agent: event.agent, event: event.event, conversation_id: event.conversationId };
  if (event.turnId !== undefined) row.turn_id = event.turnId;
  if (event.tool !== undefined) row.tool = event.tool;
  if (event.model !== undefined) row.model = event.model;
  if (files.length > 0) row.files = files;
  if (event.promptChars !== undefined) row.prompt_chars = event.promptChars;
  if (event.usage !== undefined) {
    const { input, output, cacheWrite, cacheRead } = event.usage;
    row.usage = {
      input,
      output,
      ...(cacheWrite !== undefined ? { cache_write: cacheWrite } : {}),
      ...(cacheRead !== undefined ? { cache_read: cacheRead } : {}),
    };
  }
  return withContentId(row, 'id') as unknown as TraceRecord;
}

/** One entry per file, in the order the agent gave them; files outside the repository are not the project's. */
function tracedFiles(destination: Destination, writes: readonly FileWrite[], cwd: string): TracedFile[] {
  const byPath = new Map<string, { absolute: string; fragments: WrittenFragment[] }>();
  for (const write of writes) {
    const absolute = isAbsolute(write.filePath) ? write.filePath : resolve(cwd, write.filePath);
    const path = recordedPath(destination, absolute);
    if (path === undefined) continue;
    const entry = byPath.get(path) ?? { absolute, fragments: [] };
    entry.fragments.push(...write.fragments);
    byPath.set(path, entry);
  }
  const files: TracedFile[] = [];
  for (const [path, { absolute, fragments }] of byPath) {
    const file = tracedFile(path, readBack(absolute), fragments);
    if (file) files.push(file);
  }
  return files;
}

/**
 * Repository-relative and `/`-separated, as the ledger compares it with a
 * commit's paths; symlinked folders (macOS /tmp) are resolved on both sides.
 * Detached captures have no repository: the absolute path is kept.
 */
function recordedPath(destination: Destination, absolute: string): string | undefined {
  const real = realFilePath(absolute);
  if (destination.root === undefined) return real.split(sep).join('/');
  const path = relative(destination.root, real);
  if (path === '' || path.startsWith(`..${sep}`) || path === '..' || isAbsolute(path)) return undefined;
  return path.split(sep).join('/');
}

/** The file may be gone (deleted after the write): resolve its folder then. */
function realFilePath(absolute: string): string {
  const real = realPath(absolute);
  return real !== absolute ? real : join(realPath(dirname(absolute)), basename(absolute));
}

function readBack(absolute: string): string | undefined {
  try {
    if (statSync(absolute).size > READ_BACK_CAP_BYTES) return undefined;
    return readFileSync(absolute, 'utf8');
  } catch {
    return undefined;
  }
}
