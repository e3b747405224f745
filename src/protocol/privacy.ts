// The client side of the routes that take data back (issue 31, docs/protocol.md
// "Taking data back"): tombstones to read and hand back, and forget. Offered by
// the HTTP transport as its `privacy` capability, so the kernel never names them.
import type { HttpClient } from '../net/http-client.js';
import { FORGET_ROUTE, TOMBSTONES_ROUTE } from './routes.js';

/** What a tombstone says: which row of which family was forgotten, why, by whom and when (never the content). */
export interface UnsignedTombstone {
  ts: string;
  family: string;
  /** The members that identify the row in its family: its id member, or its identity members. */
  identity: Record<string, unknown>;
  conversation_id?: string;
  /** The blob the row named, for a blob family. */
  blob_sha256?: string;
  reason: 'forget' | 'retention';
  /** The token that forgot it, `retention`, or `admin secret`. */
  by: string;
}

/** A tombstone as the service sends it; kept as it came (its signature covers it). */
export interface WireTombstone extends UnsignedTombstone {
  id: string;
  signature: string;
  [member: string]: unknown;
}

export interface TombstonePage {
  items: WireTombstone[];
  next: string;
  hasMore: boolean;
  /** How many tombstones the project has, and the XOR of their ids' first 128 bits (hex). */
  count: number;
  digest: string;
}

export interface ForgetRequest {
  conversation_ids?: string[];
  agent?: string;
  before?: string;
  with_traces: boolean;
  with_attribution: boolean;
  dry_run: boolean;
}

export interface ForgetAnswer {
  dry_run: boolean;
  removed: Record<string, number>;
  blobs: number;
  conversations: string[];
  conversations_total: number;
  tombstones: number;
  unknown_conversations: string[];
}

export interface PrivacyChannel {
  tombstones(after: string | undefined, limit: number): Promise<TombstonePage>;
  sendTombstones(items: readonly WireTombstone[]): Promise<{ applied: number; removed: number }>;
  forget(request: ForgetRequest): Promise<ForgetAnswer>;
}

export const PRIVACY_CAPABILITY = 'privacy';

export function privacyChannel(client: HttpClient): PrivacyChannel {
  return {
    async tombstones(after, limit) {
      const page = await client.getJson<{ items?: unknown; next_cursor?: unknown; has_more?: unknown; count?: unknown; digest?: unknown }>(
        TOMBSTONES_ROUTE,
        { after, limit },
      );
      return {
        items: Array.isArray(page.items) ? (page.items as WireTombstone[]) : [],
        next: typeof page.next_cursor === 'string' ? page.next_cursor : (after ?? ''),
        hasMore: page.has_more === true,
        count: Number(page.count ?? 0),
        digest: typeof page.digest === 'string' ? page.digest : '',
      };
    },
    async sendTombstones(items) {
      const answer = await client.postJson<{ applied?: unknown; removed?: unknown }>(TOMBSTONES_ROUTE, { items });
      return { applied: Number(answer.applied ?? 0), removed: Number(answer.removed ?? 0) };
    },
    forget: (request) => client.postJson<ForgetAnswer>(FORGET_ROUTE, request),
  };
}
