// How the sync engine talks to a remote, in terms of families, records and blobs:
// no route, status code or body shape. The HTTP protocol (src/protocol/) is one
// implementation, opened by the `http` plugin through the kernel's `connect` hook;
// another transport (a gateway, a file drop) would be another plugin.
import type { Readable } from 'node:stream';
import { ExitCode, TracerError } from '../core/errors.js';
import type { FamilyDefinition } from './families.js';

/** How much one request may carry and one page may hold: the engine batches and pages within these. */
export interface TransportLimits {
  /** Records per upload request. */
  itemsPerRequest: number;
  /** Serialized bytes per upload request, far below what the remote accepts. */
  bytesPerRequest: number;
  /** Records asked for per page on pull. */
  pageSize: number;
}

/** Who the credentials belong to, as the remote says (spec §4.4). */
export interface Identity {
  org_slug: string;
  /** null for an org-wide credential. */
  project_slug: string | null;
  scope: 'org' | 'project';
  token_name?: string;
}

/** What an upload of one batch did. */
export interface SendAnswer {
  received: number;
  inserted: number;
  duplicates: number;
  /** Items the remote keeps none of because it forgot them (issue 31); they go from this machine too. */
  forgotten?: number;
}

/** One page of a family's records, in the remote's order. */
export interface PageAnswer {
  items: unknown[];
  /** Each item's own JSON text, when the transport has it (saves serializing a row to check its id). */
  texts?: (string | undefined)[];
  /** Where the next page starts; opaque. */
  next: string | null;
  hasMore: boolean;
}

export interface PageQuery {
  after?: string;
  since?: string;
  limit: number;
}

/** What `connect` is asked for. */
export interface ConnectRequest {
  /** One attempt and a short time-out: for checks that must not hold a command up. */
  quick?: boolean;
}

export interface Transport {
  readonly limits: TransportLimits;
  /** Shown in messages: where the remote's API lives. */
  readonly location: string;
  /** The credentials' scope. Throws FeatureMissing('whoami') on a remote that cannot say. */
  identify(): Promise<Identity>;
  /** Uploads records already serialized as JSON, each an element of `texts`. */
  send(family: FamilyDefinition, texts: readonly string[]): Promise<SendAnswer>;
  page(family: FamilyDefinition, query: PageQuery): Promise<PageAnswer>;
  /** Whether the remote holds the bytes. Throws FeatureMissing('blobs') when it keeps no blobs. */
  hasBlob(sha256: string): Promise<boolean>;
  /** Streams bytes to the remote; `open` gives a fresh stream per attempt. */
  putBlob(sha256: string, size: number, open: () => Readable): Promise<{ alreadyPresent: boolean }>;
  /** Streams the remote's bytes into `consume` (which verifies and stores them). */
  getBlob<T>(sha256: string, consume: (body: Readable) => Promise<T>): Promise<T>;
  /** Lets requests just started reach the wire before CPU-bound work (see the HTTP client). */
  yieldToRequests(): Promise<void>;
  /**
   * More than families and blobs, by name, for the plugin that knows what to do
   * with it (e.g. taking data back); undefined when this transport does not offer it.
   */
  capability?<T>(name: string): T | undefined;
  close(): void;
}

/**
 * The remote has no such feature (an older server): the engine asks the
 * `routeMissing` hook whether a plugin falls back. `feature` is a family name,
 * `blobs` or `whoami`.
 */
export class FeatureMissing extends TracerError {
  constructor(
    readonly feature: string,
    readonly where: string,
    message: string,
  ) {
    super('route_unsupported', message, { exitCode: ExitCode.failure });
  }
}

/**
 * The remote refused records of a batch as invalid. `items` names the refused
 * ones by index with a reason each, when the remote said; otherwise the whole
 * batch was refused and the engine halves it until the culprits stand alone.
 * `needsBlobs`: pointer rows were refused because the remote lacks their bytes.
 * Also thrown by putBlob / getBlob when the remote refuses that one blob (too
 * large, unknown, bytes not matching their sha): that row stays unsynced, the
 * run goes on. Failures to reach the remote at all are other TracerErrors.
 */
export class ItemsRefused extends TracerError {
  constructor(
    code: string,
    message: string,
    readonly items: ReadonlyMap<number, string> = new Map(),
    readonly needsBlobs = false,
  ) {
    super(code, message, { exitCode: ExitCode.validation });
  }
}

export function isFeatureMissing(error: unknown): error is FeatureMissing {
  return error instanceof FeatureMissing;
}

export function isItemsRefused(error: unknown): error is ItemsRefused {
  return error instanceof ItemsRefused;
}
