import type { ParsedRemoteUrl } from '../core/remote-url.js';
import type { TracerWarning } from '../core/errors.js';
import type { Transport } from './transport.js';
import type { CredentialPurpose } from '../store/credentials.js';
import type { Project } from '../store/project.js';
import type { RemoteRecord } from '../store/remotes.js';
import type { RegisteredFamily } from './families.js';

/** Values that flow through the kernel's hooks (see hooks.ts). */

export interface RemoteQuery {
  project: Project;
  /** `--remote`, when given. */
  name?: string;
  purpose: CredentialPurpose;
}

export interface ResolvedRemote {
  name: string;
  record: RemoteRecord;
  target: ParsedRemoteUrl;
  token?: string;
  /** Where the token came from (`config.json`, `env:VAR`, `none`), for messages. */
  tokenSource: string;
  /** Only for project creation (spec §5.2 rule 3). */
  adminSecret?: string;
}

/** What the user asked of a push (spec §4.2). */
export interface PushOptions {
  full: boolean;
  /** `--only`: a family name; families that follow it run too. */
  only?: string;
  /** `--since`, normalized ISO-8601. */
  since?: string;
  dryRun: boolean;
}

/** An entry of the push error log (push-errors.log): never a token. */
export interface PushLogEntry {
  code: string;
  message: string;
  family?: string;
  item?: string;
}

/** One push or pull against one remote. */
export interface SyncSession {
  direction: 'push' | 'pull' | 'check';
  project: Project;
  remote: ResolvedRemote;
  /** How this session reaches the remote (opened through the connect hook). */
  transport: Transport;
  dryRun: boolean;
  /** Present on push. */
  push?: PushOptions;
  /** Non-fatal notice: shown, and kept in the result. */
  warn(warning: TracerWarning): void;
  /** Appends to the project's push error log (and warns). */
  log(entry: PushLogEntry): Promise<void>;
  /** Scratch space plugins share within one session (keyed by plugin name). */
  state: Map<string, unknown>;
}

/** A filter a beforeFamily tap adds; `reason` names why records it rejects are held back. */
export interface RecordFilter {
  reason: string;
  /** Runs once, before the first `accept`: costly set-up is paid only when some record is not synced yet. */
  prepare?(): Promise<void>;
  accept(record: Record<string, unknown>): boolean;
}

/**
 * A change a beforeFamily tap makes to records on their way out (redaction of
 * data stored before it existed); the stored record stays as it is.
 */
export interface OutgoingRewrite {
  /** Names the rewrite in messages. */
  reason: string;
  /**
   * The record to send instead of `record`, or undefined to send it as stored. A
   * blob family's rewrite first puts the bytes it sends in `store`'s cache. The
   * push records which stored key went out as which sent key (sent-as.jsonl), so
   * the manifest keeps listing the stored one and a pull takes the copy for it.
   */
  rewrite(record: Record<string, unknown>, store: FamilyStore): Promise<Record<string, unknown> | undefined>;
}

/** What a push of one family will send; beforeFamily taps narrow it. */
export interface FamilyPlan {
  family: RegisteredFamily;
  /** Lower bound on item `ts` (`--since`). */
  since?: string;
  /** Every filter must accept a record for it to be sent. */
  filters: RecordFilter[];
  /** Applied in order to each record a push sends (not to a dry run's). */
  rewrites?: OutgoingRewrite[];
  /** Set to a reason to leave the whole family out of this run. */
  skip?: string;
}

export interface BlobUpload {
  sha256: string;
  size: number;
  /** The cache file holding the bytes. */
  path: string;
  family: RegisteredFamily;
}

export interface BlobUploadResult {
  /** `blob`: the service holds the bytes; `inline`: send them inside the row instead. */
  via: 'blob' | 'inline';
  /** True when the service already held them. */
  alreadyPresent: boolean;
}

export interface BlobFetch {
  sha256: string;
  size?: number;
  /** Where the verified bytes must end up (renamed into place only after the sha matched). */
  path: string;
  family: RegisteredFamily;
}

export interface BlobFetchResult {
  size: number;
}

/** The remote lacks a feature a step needs (an older server): see FeatureMissing in transport.ts. */
export interface MissingRoute {
  /** The family whose step it is, when it is a family's. */
  family?: RegisteredFamily;
  /** A family name, `blobs` or `whoami`. */
  feature: string;
  /** What is missing, as the transport names it (for HTTP, the route). */
  where: string;
}

/** A fallback's answer: the step is left out, with a warning to show unless it is silent. */
export interface RouteFallback {
  /** Omit for a silent fallback. */
  warning?: TracerWarning;
}

export interface FamilyPullResult {
  family: RegisteredFamily;
  received: number;
  inserted: number;
}

/** Progress of a run, for whatever draws it (the engine emits, nothing else depends on it). */
export type SyncEvent =
  | { type: 'step-start'; step: string; total?: number }
  | { type: 'step-progress'; step: string; done: number; total?: number; detail?: string }
  | { type: 'step-end'; step: string; status: 'done' | 'skipped' | 'failed'; summary: string };

/**
 * Local storage of one family. The engine reads and appends through it; a
 * family without one gets the JSONL store its definition's `file` implies.
 */
export interface FamilyStore {
  /** Streams local records. Unreadable lines are reported through `warn`. */
  records(warn: (warning: TracerWarning) => void): AsyncIterable<Record<string, unknown>>;
  /** A record's identity (content id, or identity members joined); undefined when it has none. */
  keyOf(record: Record<string, unknown>): string | undefined;
  /** Appends verified pulled records (their bytes, for a blob family, already in place). */
  /** `lines`, where given, are the records already serialized (index by index; undefined where not). */
  append(records: readonly Record<string, unknown>[], lines?: readonly (string | undefined)[]): Promise<void>;
  /** Blob families: the cache file for a sha. */
  blobPath?(sha256: string): string;
  /**
   * Append-only stores: the records from `mark` on (from the start when the mark
   * no longer fits the file), each with where its line ends, so that a push can
   * skip next time the prefix it has wholly synced.
   */
  scan?(mark: ScanMark | undefined, warn: (warning: TracerWarning) => void): Promise<Scan>;
  /** The mark of the position `end` (a line end `scan` gave), to resume from later. */
  markAt?(end: number, line: number, records: number): ScanMark | undefined;
  /**
   * Removes the records `judge` drops (forget, issue 31): only lines holding one
   * of its needles are parsed. Crash-safe: each file is rewritten atomically, and
   * bytes no record names any more are deleted last. Returns how many records went.
   */
  remove?(judge: RecordJudge): Promise<number>;
  /**
   * Brings what the store derives from its records (an index) back in line after
   * a process was killed mid-append. Pull calls it before reading the store.
   */
  recover?(warn: (warning: TracerWarning) => void): Promise<void>;
  /**
   * Replaces records in place (`tracer redact --store`): `change` returns a
   * record's replacement, or undefined to keep it; a blob family's replacement
   * names bytes already in the cache, and the bytes it no longer names are
   * removed. Atomic per file. Returns how many records were replaced.
   */
  rewrite?(change: (record: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>): Promise<number>;
}

/** Which records a removal takes: those `drop` says, among the lines that hold one of `needles` (all when absent). */
export interface RecordJudge {
  needles?: readonly string[];
  drop(record: Record<string, unknown>): boolean;
}

/** A position in an append-only store, and the bytes just before it, so a replaced or truncated file is noticed. */
export interface ScanMark {
  offset: number;
  /** Lines before `offset`, so later line numbers in messages stay right. */
  line: number;
  /** Records before `offset`. */
  records: number;
  /** base64 of the bytes just before `offset`. */
  tail: string;
}

export interface Scan {
  /** The mark reading resumed from, or undefined when it started at the beginning. */
  resumedFrom?: ScanMark;
  lines: AsyncIterable<ScannedLine>;
}

/** A line of the store: its record, or none when it does not parse or is not an object (already warned about). */
export interface ScannedLine {
  record?: Record<string, unknown>;
  /** The record's JSON as stored: sent as it is when the record goes out unchanged, saving a serialization. */
  text?: string;
  end: number;
  line: number;
}
