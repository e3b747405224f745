// The local search index (issue 32): SQLite FTS5 in `<project>/cache/search.sqlite`,
// a cache of what the JSONL store holds, never a source of truth. Every reader
// first brings it level with the store (`syncIndex`): the transcripts whose
// newest snapshot changed are read again through their agent's transcript
// format, the tails of traces.jsonl, session-summaries.jsonl and
// commit-links.jsonl are read from where the last sync stopped, and a
// conversation whose snapshot and summary are gone (forgotten) leaves the index.
// A file that was rewritten rather than appended to (forget, a repair) is read
// again whole. An index that does not open, has another schema version, or
// fails SQLite's quick check is deleted and built again.
//
// What is indexed is what the store holds: transcripts and summaries are stored
// redacted (src/redact/), so a secret's placeholder is indexed, never the secret.
//
// One row per conversation in the FTS5 table `docs`, its columns weighed apart
// by BM25: the person's prompts, the assistant's messages, the files its tool
// calls named, the session's summary, and the subjects of the commits it led to.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Database from 'better-sqlite3';
import { conversationIdsOfUrls } from '../core/conversation-members.js';
import { ExitCode, TracerError } from '../core/errors.js';
import type { TranscriptFormat } from '../core/transcript.js';
import { PROJECT_STATE_FILES } from '../store/home.js';
import { readRecordsFrom, tailBefore } from '../store/jsonl.js';
import type { FormatContext } from '../transcript/agents.js';

const run = promisify(execFile);

/**
 * Bumped whenever the tables or what goes in them change: an index of another version is built again.
 * 3: the built binary stored commit authors without their email (its late-loaded child_process lost
 * execFile's promise form, so git's answer was never read); those indexes are built again.
 * 4: conv.transcript_agent and conv.transcript_model, what the transcript itself names.
 * 5: commit subjects redacted as capture redacts (an index of 4 may hold a secret a subject held).
 */
export const INDEX_SCHEMA_VERSION = 5;
export const INDEX_FILE = join(PROJECT_STATE_FILES.cache, 'search.sqlite');
/** Text kept per column of one conversation: memory stays bounded whatever a transcript holds. */
const COLUMN_MAX_CHARS = 4_000_000;
const SHA256 = /^[0-9a-f]{64}$/;
/** Transcripts read ahead of the one being written, and at most this many of their bytes. */
const READ_AHEAD = 2;
const READ_AHEAD_BYTES = 8 * 2 ** 20;

/** The files of the store the index follows, each read from where the last sync stopped. */
const TAILED = { traces: 'traces.jsonl', summaries: 'session-summaries.jsonl', links: 'commit-links.jsonl' } as const;
type Tailed = keyof typeof TAILED;

export interface IndexOptions {
  projectDir: string;
  /** Finds the agents' transcript readers as the viewer does (user plugins included). */
  formats?: FormatContext;
  /** The repository, to read the subject and author of commits whose link does not carry them. */
  git?: { cwd: string; env?: NodeJS.ProcessEnv };
  /** Called as transcripts are read: bytes read so far and in all. */
  progress?: (done: number, total: number) => void;
}

export interface SyncReport {
  rebuilt: boolean;
  /** Conversations whose transcript was read. */
  indexed: number;
  /** Bytes of transcript read. */
  bytes: number;
  removed: number;
}

type Db = Database.Database;

export async function openIndex(projectDir: string, options: { reset?: boolean } = {}): Promise<{ db: Db; rebuilt: boolean }> {
  const { default: Sqlite } = await import('better-sqlite3');
  const path = join(projectDir, INDEX_FILE);
  try {
    mkdirSync(join(projectDir, PROJECT_STATE_FILES.cache), { recursive: true, mode: 0o700 });
    if (options.reset) removeIndexFiles(path);
  } catch (error) {
    throw unwritableIndex(path, error);
  }
  const existed = (() => {
    try {
      return statSync(path).size > 0;
    } catch {
      return false;
    }
  })();
  if (existed) {
    try {
      const db = new Sqlite(path);
      if (trusted(db)) return { db, rebuilt: false };
      db.close();
    } catch {
      // not a database, or a damaged one: built again below
    }
    removeIndexFiles(path);
  }
  let db: Db;
  try {
    db = new Sqlite(path);
  } catch (error) {
    throw unwritableIndex(path, error);
  }
  try {
    createSchema(db);
  } catch (error) {
    db.close();
    throw unwritableIndex(path, error);
  }
  return { db, rebuilt: true };
}

function unwritableIndex(path: string, error: unknown): TracerError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new TracerError(
    'search_index_failed',
    `Cannot write the search index ${path} (${reason}); check that the project's folder is writable, then search again.`,
    { exitCode: ExitCode.localState, cause: error },
  );
}

function removeIndexFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

function trusted(db: Db): boolean {
  try {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined;
    if (row?.value !== String(INDEX_SCHEMA_VERSION)) return false;
    // A whole-file check would cost seconds on a large index at every search: a damaged page is met by the
    // query that reads it instead, and syncIndex / searchProject build the index again when SQLite says so.
    db.prepare('SELECT count(*) FROM conv').get();
    pragmas(db);
    return true;
  } catch {
    return false;
  }
}

function pragmas(db: Db): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -8000');
  // Forgotten text is overwritten in the file, not left in free pages.
  db.pragma('secure_delete = ON');
}

/**
 * After conversations left: FTS5 keeps a deleted row's terms in its segments
 * until they are merged; `optimize` merges them all, so no forgotten word stays
 * in the file, and the WAL is folded back and emptied.
 */
function purge(db: Db): void {
  db.prepare("INSERT INTO docs (docs) VALUES ('optimize')").run();
  db.pragma('wal_checkpoint(TRUNCATE)');
}

function createSchema(db: Db): void {
  pragmas(db);
  db.exec(`
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE conv (
      n INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      sha TEXT,
      size INTEGER,
      agent TEXT,
      model TEXT,
      -- What the transcript names, for a conversation whose trace rows name no agent or model (no file edited).
      transcript_agent TEXT,
      transcript_model TEXT,
      first_ts TEXT,
      last_ts TEXT,
      summary TEXT,
      in_docs INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE commits (sha TEXT PRIMARY KEY, subject TEXT, author TEXT);
    CREATE TABLE conv_commits (conv TEXT NOT NULL, sha TEXT NOT NULL, PRIMARY KEY (conv, sha)) WITHOUT ROWID;
    CREATE VIRTUAL TABLE docs USING fts5(prompts, assistant, files, summary, commits, tokenize = 'unicode61 remove_diacritics 2');
  `);
  db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(String(INDEX_SCHEMA_VERSION));
}

function getMeta(db: Db, key: string): string | undefined {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

interface Position {
  offset: number;
  line: number;
  tail: string | null;
}

/** Where the last sync stopped in a tailed file; from the start when the file was rewritten since (or is new). */
function positionOf(db: Db, projectDir: string, file: Tailed): { from: Position; rewritten: boolean } {
  const saved = getMeta(db, `tail:${file}`);
  const start = { offset: 0, line: 0, tail: null };
  if (saved === undefined) return { from: start, rewritten: false };
  const position = JSON.parse(saved) as Position;
  if (position.offset === 0) return { from: start, rewritten: false };
  const now = tailBefore(join(projectDir, TAILED[file]), position.offset) ?? null;
  return now !== null && now === position.tail ? { from: position, rewritten: false } : { from: start, rewritten: true };
}

async function* tail(db: Db, projectDir: string, file: Tailed, from: Position): AsyncGenerator<Record<string, unknown>> {
  const path = join(projectDir, TAILED[file]);
  let last = from;
  // A line that does not parse is passed over only once a line follows it: the last one may be an append still being written.
  let unread: Position | undefined;
  for await (const entry of readRecordsFrom<unknown>(path, from)) {
    if (unread) last = unread;
    unread = undefined;
    if (!entry.ok) {
      unread = { offset: entry.end, line: entry.line, tail: null };
      continue;
    }
    if (typeof entry.value === 'object' && entry.value !== null && !Array.isArray(entry.value))
      yield entry.value as Record<string, unknown>;
    last = { offset: entry.end, line: entry.line, tail: null };
  }
  setMeta(db, `tail:${file}`, JSON.stringify({ ...last, tail: tailBefore(path, last.offset) ?? null }));
}

/**
 * Brings the index level with the store, and returns it open. `reset` builds it
 * from nothing (`tracer search --reindex`).
 */
export async function syncIndex(options: IndexOptions & { reset?: boolean }): Promise<{ db: Db; report: SyncReport }> {
  try {
    return await syncOnce(options);
  } catch (error) {
    // A damaged page met on the way: the index is built again from the store, once.
    if (!isCorrupt(error) || options.reset) throw error;
    return syncOnce({ ...options, reset: true });
  }
}

async function syncOnce(options: IndexOptions & { reset?: boolean }): Promise<{ db: Db; report: SyncReport }> {
  const { db, rebuilt } = await openIndex(options.projectDir, { reset: options.reset });
  try {
    const report = await syncOpen(db, options);
    return { db, report: { ...report, rebuilt: rebuilt || options.reset === true } };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** SQLite's word for a file that is not (or no longer) a sound database. */
export function isCorrupt(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
}

async function syncOpen(db: Db, options: IndexOptions): Promise<Omit<SyncReport, 'rebuilt'>> {
  const { projectDir } = options;
  const touched = new Set<string>();
  await syncTraces(db, projectDir);
  await syncSummaries(db, projectDir, touched);
  await syncLinks(db, options, touched);
  // The snapshots' index is compared only when it changed since the last sync (a rewrite is a new file: its inode changes too).
  const indexStamp = snapshotIndexStamp(projectDir);
  if (indexStamp !== undefined && getMeta(db, 'snapshots') === indexStamp) {
    let removed = 0;
    for (const id of touched) removed += writeDoc(db, id, undefined) ? 1 : 0;
    if (removed > 0) purge(db);
    return { indexed: 0, bytes: 0, removed };
  }
  const snapshots = readSnapshotIndex(projectDir);
  const rows = db.prepare('SELECT id, sha FROM conv').raw().all() as [string, string | null][];
  const stale = rows.filter(([id, sha]) => snapshots.get(id) !== (sha ?? undefined)).map(([id]) => id);
  const known = new Set(rows.map(([id]) => id));
  const fresh = [...snapshots.keys()].filter((id) => !known.has(id));
  const work = [...stale, ...fresh];
  let total = 0;
  const sizes = new Map<string, number>();
  for (const id of work) {
    const sha = snapshots.get(id);
    if (sha === undefined) continue;
    const size = snapshotSize(projectDir, sha);
    sizes.set(id, size);
    total += size;
  }
  let bytes = 0;
  let indexed = 0;
  // Transcripts are read a few ahead of the one being written, so that waiting for the disk overlaps parsing; each
  // read settles into a result, unwrapped (and its failure thrown) in order, below.
  type Read = { ok: true; text: TranscriptText | undefined } | { ok: false; error: unknown };
  const reads = new Map<string, Promise<Read>>();
  let ahead = 0;
  let aheadBytes = 0;
  const readAhead = () => {
    while (ahead < work.length && reads.size < READ_AHEAD && aheadBytes < READ_AHEAD_BYTES) {
      const id = work[ahead++]!;
      const sha = snapshots.get(id);
      if (sha === undefined) continue;
      aheadBytes += sizes.get(id) ?? 0;
      reads.set(
        id,
        transcriptText(projectDir, sha, agentOf(db, id), options.formats).then(
          (text): Read => ({ ok: true, text }),
          (error: unknown): Read => ({ ok: false, error }),
        ),
      );
    }
  };
  for (const id of work) {
    readAhead();
    const sha = snapshots.get(id);
    ensureConv(db, id);
    if (sha === undefined) {
      db.prepare('UPDATE conv SET sha = NULL, size = NULL WHERE id = ?').run(id);
      touched.add(id);
      continue;
    }
    const read = await reads.get(id)!;
    reads.delete(id);
    aheadBytes -= sizes.get(id) ?? 0;
    if (!read.ok) throw read.error;
    db.prepare('UPDATE conv SET sha = ?, size = ?, transcript_agent = ?, transcript_model = ? WHERE id = ?').run(
      sha,
      sizes.get(id) ?? 0,
      read.text?.agent ?? null,
      read.text?.model ?? null,
      id,
    );
    writeDoc(db, id, read.text);
    touched.delete(id);
    indexed += 1;
    bytes += sizes.get(id) ?? 0;
    options.progress?.(bytes, total);
  }
  let removed = 0;
  for (const id of touched) removed += writeDoc(db, id, undefined) ? 1 : 0;
  if (removed > 0) purge(db);
  if (indexStamp !== undefined) setMeta(db, 'snapshots', indexStamp);
  return { indexed, bytes, removed };
}

function ensureConv(db: Db, id: string): void {
  db.prepare('INSERT INTO conv (id) VALUES (?) ON CONFLICT (id) DO NOTHING').run(id);
}

function agentOf(db: Db, id: string): string | undefined {
  return (
    (db.prepare('SELECT coalesce(agent, transcript_agent) AS agent FROM conv WHERE id = ?').get(id) as { agent: string | null } | undefined)
      ?.agent ?? undefined
  );
}

async function syncTraces(db: Db, projectDir: string): Promise<void> {
  const { from, rewritten } = positionOf(db, projectDir, 'traces');
  if (rewritten) db.exec('UPDATE conv SET agent = NULL, model = NULL, first_ts = NULL, last_ts = NULL');
  const upsert = db.prepare(`
    INSERT INTO conv (id, agent, model, first_ts, last_ts) VALUES (@id, @agent, @model, @ts, @ts)
    ON CONFLICT (id) DO UPDATE SET
      agent = coalesce(excluded.agent, conv.agent),
      model = coalesce(excluded.model, conv.model),
      first_ts = CASE WHEN conv.first_ts IS NULL OR excluded.first_ts < conv.first_ts THEN excluded.first_ts ELSE conv.first_ts END,
      last_ts = CASE WHEN conv.last_ts IS NULL OR excluded.last_ts > conv.last_ts THEN excluded.last_ts ELSE conv.last_ts END`);
  let batch: Record<string, unknown>[] = [];
  const flush = db.transaction((rows: Record<string, unknown>[]) => {
    for (const row of rows) upsert.run(row);
  });
  for await (const row of tail(db, projectDir, 'traces', from)) {
    const id = row.conversation_id;
    if (typeof id !== 'string' || id === '' || typeof row.ts !== 'string') continue;
    batch.push({
      id,
      agent: typeof row.agent === 'string' ? row.agent : null,
      model: typeof row.model === 'string' && row.model !== '' ? row.model : null,
      ts: row.ts,
    });
    if (batch.length >= 5_000) {
      flush(batch);
      batch = [];
    }
  }
  flush(batch);
}

async function syncSummaries(db: Db, projectDir: string, touched: Set<string>): Promise<void> {
  const { from, rewritten } = positionOf(db, projectDir, 'summaries');
  if (rewritten) {
    for (const id of db.prepare('SELECT id FROM conv WHERE summary IS NOT NULL').pluck().all() as string[]) touched.add(id);
    db.exec('UPDATE conv SET summary = NULL');
  }
  // session-summaries.jsonl keeps the latest per conversation: the last row read wins.
  const latest = new Map<string, { text: string; agent?: string; ts?: string }>();
  for await (const row of tail(db, projectDir, 'summaries', from)) {
    if (typeof row.summary !== 'string' || row.summary.trim() === '') continue;
    const named = typeof row.conversation_id === 'string' && row.conversation_id !== '' ? [row.conversation_id] : [];
    for (const id of named.length > 0 ? named : conversationIdsOfUrls([row.conversation_url]))
      latest.set(id, {
        text: row.summary.slice(0, COLUMN_MAX_CHARS),
        ...(typeof row.agent === 'string' ? { agent: row.agent } : {}),
        ...(typeof row.ts === 'string' ? { ts: row.ts } : {}),
      });
  }
  const set = db.prepare(`
    INSERT INTO conv (id, summary, agent, first_ts, last_ts) VALUES (@id, @text, @agent, @ts, @ts)
    ON CONFLICT (id) DO UPDATE SET summary = excluded.summary, agent = coalesce(conv.agent, excluded.agent),
      first_ts = coalesce(conv.first_ts, excluded.first_ts), last_ts = coalesce(conv.last_ts, excluded.last_ts)`);
  db.transaction(() => {
    for (const [id, summary] of latest) {
      set.run({ id, text: summary.text, agent: summary.agent ?? null, ts: summary.ts ?? null });
      touched.add(id);
    }
  })();
}

/**
 * Subjects as capture would keep them: a commit message can hold a secret as a prompt can, and the index
 * holds what it finds as its placeholder, never as the secret (issue 32). The redactor is capture's for this
 * project (the team's rules included), built only when there is a subject to read.
 */
async function redactSubjects(described: Map<string, { subject: string | null }>, options: IndexOptions): Promise<void> {
  const subjects = [...described.values()].filter((about) => about.subject !== null);
  if (subjects.length === 0 || !options.formats) return;
  const { home, env } = options.formats;
  const [{ captureRedactor }, { findGit }] = await Promise.all([import('../redact/capture.js'), import('../store/git.js')]);
  const root = options.git ? findGit(options.git.cwd, options.git.env ?? env)?.worktree : undefined;
  // Problems (a refused team file) are capture's to log; the built-in layers still run.
  const { redactor } = await captureRedactor({ home, projectDir: options.projectDir, root, env }, () => undefined);
  for (const about of subjects) about.subject = (await redactor.redact(about.subject!)).text;
}

async function syncLinks(db: Db, options: IndexOptions, touched: Set<string>): Promise<void> {
  const { from, rewritten } = positionOf(db, options.projectDir, 'links');
  if (rewritten) {
    for (const id of db.prepare('SELECT DISTINCT conv FROM conv_commits').pluck().all() as string[]) touched.add(id);
    db.exec('DELETE FROM conv_commits');
  }
  const pairs: [string, string][] = [];
  const described = new Map<string, { subject: string | null; author: string | null }>();
  for await (const row of tail(db, options.projectDir, 'links', from)) {
    if (typeof row.commit !== 'string' || !/^[0-9a-f]{40,64}$/.test(row.commit)) continue;
    const sessions = Array.isArray(row.session_ids)
      ? row.session_ids.filter((id): id is string => typeof id === 'string' && id !== '')
      : [];
    for (const id of sessions) pairs.push([id, row.commit]);
    const subject = typeof row.subject === 'string' ? row.subject : null;
    const author = typeof row.author_name === 'string' ? row.author_name : null;
    if (subject !== null || author !== null || !described.has(row.commit)) described.set(row.commit, { subject, author });
  }
  // git's answer wins where this clone has the commit: the link names its author without the email
  // that --author also matches; the link's own members stand for commits the clone lacks.
  const unknown = [...described.keys()].filter((sha) => !hasCommit(db, sha));
  for (const [sha, about] of await describeCommits(unknown, options.git)) described.set(sha, about);
  await redactSubjects(described, options);
  const putCommit = db.prepare(
    // An author with an email (git's answer) is never replaced by a link's later name without it.
    "INSERT INTO commits (sha, subject, author) VALUES (?, ?, ?) ON CONFLICT (sha) DO UPDATE SET subject = coalesce(excluded.subject, commits.subject), author = CASE WHEN commits.author LIKE '%<%>' THEN commits.author ELSE coalesce(excluded.author, commits.author) END",
  );
  const link = db.prepare('INSERT INTO conv_commits (conv, sha) VALUES (?, ?) ON CONFLICT DO NOTHING');
  db.transaction(() => {
    for (const [sha, about] of described) putCommit.run(sha, about.subject, about.author);
    for (const [id, sha] of pairs) {
      link.run(id, sha);
      touched.add(id);
    }
  })();
}

function hasCommit(db: Db, sha: string): boolean {
  return db.prepare('SELECT subject FROM commits WHERE sha = ? AND subject IS NOT NULL').get(sha) !== undefined;
}

/** Subject and author (name and email) of each commit git has; commits this clone lacks are left out. */
async function describeCommits(
  shas: string[],
  git: IndexOptions['git'],
): Promise<Map<string, { subject: string | null; author: string | null }>> {
  const found = new Map<string, { subject: string | null; author: string | null }>();
  if (!git || shas.length === 0) return found;
  for (let at = 0; at < shas.length; at += 500) {
    const batch = shas.slice(at, at + 500);
    try {
      const { stdout } = await run('git', ['log', '--no-walk=unsorted', '--ignore-missing', '--format=%H%x00%an <%ae>%x00%s', ...batch], {
        cwd: git.cwd,
        env: git.env ?? process.env,
        maxBuffer: 64 * 1024 * 1024,
      });
      for (const line of stdout.split('\n')) {
        const [sha, author, subject] = line.split('\0');
        if (sha && subject !== undefined) found.set(sha, { subject, author: author ?? null });
      }
    } catch {
      // a commit git does not know: its subject stays unknown until a link carries it
    }
  }
  return found;
}

/** Size, mtime and inode of conversations/_index.json; undefined when there is none. */
function snapshotIndexStamp(projectDir: string): string | undefined {
  try {
    const info = statSync(join(projectDir, 'conversations', '_index.json'), { bigint: true });
    return `${info.size}:${info.mtimeNs}:${info.ino}`;
  } catch {
    return undefined;
  }
}

function readSnapshotIndex(projectDir: string): Map<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(join(projectDir, 'conversations', '_index.json'), 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new Map();
    return new Map(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && SHA256.test(entry[1])),
    );
  } catch {
    return new Map();
  }
}

function snapshotPath(projectDir: string, sha: string): string {
  return join(projectDir, 'conversations', sha.slice(0, 2), sha);
}

function snapshotSize(projectDir: string, sha: string): number {
  try {
    return statSync(snapshotPath(projectDir, sha)).size;
  } catch {
    return 0;
  }
}

interface TranscriptText {
  prompts: string;
  assistant: string;
  files: string;
  /** The agent whose format read it, and the model of its last assistant message that names one. */
  agent?: string;
  model?: string | null;
}

/** The searchable text of one snapshot, read through its agent's format (recognised by its first records when the agent is not known). */
export async function transcriptText(
  projectDir: string,
  sha: string,
  agent: string | undefined,
  context: FormatContext | undefined,
): Promise<TranscriptText | undefined> {
  // The readers load only when a transcript is to be read: a search that finds the index level needs none of them.
  const [{ recognizeFormat, transcriptFormat }, { readItems }, { fileSource }] = await Promise.all([
    import('../transcript/agents.js'),
    import('../transcript/read.js'),
    import('../transcript/source.js'),
  ]);
  const source = await fileSource(snapshotPath(projectDir, sha));
  if (!source) return undefined;
  let format: TranscriptFormat | undefined = agent === undefined ? undefined : await transcriptFormat(agent, context);
  format ??= await recognizeFormat(source, context);
  if (!format) return undefined;
  const prompts = new Column();
  const assistant = new Column();
  const files = new Set<string>();
  let model: string | null = null;
  for await (const item of readItems(source, format)) {
    if (item.kind === 'message' && item.role === 'person') prompts.add(item.text);
    else if (item.kind === 'message' && item.role === 'assistant') {
      assistant.add(item.text);
      model = item.model ?? model;
    } else if (item.kind === 'tool_call') for (const file of item.files) if (files.size < 10_000) files.add(file);
  }
  return { prompts: prompts.text(), assistant: assistant.text(), files: [...files].join('\n'), agent: format.agent, model };
}

/**
 * A column's text: each distinct message once. An agent repeats itself within
 * a conversation (the same status line, reminder or "continue" many times);
 * the repeats add nothing to which conversation a search finds, and only make
 * every query that meets them read their positions again.
 */
class Column {
  private parts: string[] = [];
  private length = 0;
  private readonly seen = new Set<string>();
  add(text: string): void {
    if (this.length >= COLUMN_MAX_CHARS || this.seen.has(text)) return;
    this.seen.add(text);
    const kept = text.slice(0, COLUMN_MAX_CHARS - this.length);
    this.parts.push(kept);
    this.length += kept.length + 1;
  }
  text(): string {
    return this.parts.join('\n');
  }
}

/**
 * Writes a conversation's row of `docs` from its stored parts. `text` is the
 * transcript's (undefined: keep what the row holds, or none when the snapshot
 * is gone). A conversation with neither a snapshot nor a summary has no row:
 * true when one was removed.
 */
function writeDoc(db: Db, id: string, text: TranscriptText | undefined): boolean {
  const conv = db.prepare('SELECT n, sha, summary, in_docs FROM conv WHERE id = ?').get(id) as
    { n: number; sha: string | null; summary: string | null; in_docs: number } | undefined;
  if (!conv) return false;
  const old =
    conv.in_docs === 1
      ? (db.prepare('SELECT prompts, assistant, files FROM docs WHERE rowid = ?').get(conv.n) as TranscriptText | undefined)
      : undefined;
  const transcript = text ?? (conv.sha === null ? undefined : old);
  const commits = (
    db
      .prepare('SELECT c.subject FROM conv_commits l JOIN commits c ON c.sha = l.sha WHERE l.conv = ? AND c.subject IS NOT NULL')
      .pluck()
      .all(id) as string[]
  ).join('\n');
  const keep = conv.sha !== null || conv.summary !== null;
  return db.transaction(() => {
    if (conv.in_docs === 1) db.prepare('DELETE FROM docs WHERE rowid = ?').run(conv.n);
    if (!keep) {
      db.prepare('UPDATE conv SET in_docs = 0 WHERE n = ?').run(conv.n);
      return conv.in_docs === 1;
    }
    db.prepare('INSERT INTO docs (rowid, prompts, assistant, files, summary, commits) VALUES (?, ?, ?, ?, ?, ?)').run(
      conv.n,
      transcript?.prompts ?? '',
      transcript?.assistant ?? '',
      transcript?.files ?? '',
      conv.summary ?? '',
      commits,
    );
    db.prepare('UPDATE conv SET in_docs = 1 WHERE n = ?').run(conv.n);
    return false;
  })();
}

/**
 * Forget (issue 31): the conversations leave the index at once, whatever the
 * store still holds until its rewrite is done; a later sync indexes them again
 * only if the store still has their transcript or summary. No index, nothing to do.
 */
export async function removeFromIndex(projectDir: string, conversationIds: Iterable<string>): Promise<number> {
  const path = join(projectDir, INDEX_FILE);
  try {
    if (statSync(path).size === 0) return 0;
  } catch {
    return 0;
  }
  const { db } = await openIndex(projectDir);
  try {
    let removed = 0;
    db.transaction(() => {
      for (const id of conversationIds) {
        const conv = db.prepare('SELECT n, in_docs FROM conv WHERE id = ?').get(id) as { n: number; in_docs: number } | undefined;
        if (!conv) continue;
        if (conv.in_docs === 1) db.prepare('DELETE FROM docs WHERE rowid = ?').run(conv.n);
        db.prepare('DELETE FROM conv_commits WHERE conv = ?').run(id);
        // sha and summary forgotten too: the next sync compares the store with nothing and reads what is left, if anything.
        db.prepare('UPDATE conv SET sha = NULL, size = NULL, summary = NULL, in_docs = 0 WHERE n = ?').run(conv.n);
        removed += conv.in_docs;
      }
      // Summaries are read again whole at the next sync: those the store still holds come back.
      db.prepare("DELETE FROM meta WHERE key IN ('tail:summaries', 'snapshots')").run();
    })();
    if (removed > 0) purge(db);
    return removed;
  } finally {
    db.close();
  }
}
