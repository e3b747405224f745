// The blob routes' rules (wire contract "Blobs"): what HEAD answers mean, how
// to tell "not held" from "no such route", and what an upload carries.
import type { HttpClient } from '../net/http-client.js';
import { blobRoute } from './routes.js';

export const BLOB_CONTENT_TYPE = 'application/octet-stream';
/** The sha the service checks the streamed bytes against (422 sha_mismatch). */
export const BLOB_SHA_HEADER = 'x-content-sha256';

/** HEAD answers, not failures: 200 held, 404 not held (or no route), 405/501 no route. */
export const BLOB_HEAD_STATUSES: readonly number[] = [200, 404, 405, 501];

export function blobUploadHeaders(sha256: string, size: number): Record<string, string> {
  return { 'content-type': BLOB_CONTENT_TYPE, 'content-length': String(size), [BLOB_SHA_HEADER]: sha256 };
}

/**
 * A HEAD 404 means "not held" on a server with the route and "no such route" on
 * one without. A sha the route must refuse tells them apart without a write:
 * 400 invalid_sha comes only from the route itself.
 */
export async function blobRoutePresent(client: HttpClient): Promise<boolean> {
  const probe = await client.head(blobRoute('probe'), [400, 404, 405, 501]);
  return probe.status === 400;
}
