import { createReadStream } from 'node:fs';
import type { TracerPlugin } from '../kernel/kernel.js';
import { STAGE } from '../kernel/stages.js';
import type { SyncSession } from '../kernel/types.js';
import { isRouteMissing } from '../net/remote-error.js';
import { BLOB_READ_CHUNK, writeVerifiedBlob } from '../engine/blob-file.js';

/**
 * The native blob path (spec §4.3, wire contract "Blobs"): HEAD the sha, POST
 * the bytes streamed from the cache file when the service lacks them, and on
 * pull GET them into the cache, verified before the rename. When the server has
 * no blob route at all it declines, so a fallback (blobs-missing) may answer.
 */
export const BLOBS_ROUTE = '/api/v1/blobs';
const ROUTE_ABSENT = 'blobs:route-absent';

const blobsPlugin: TracerPlugin = {
  name: 'blobs',
  apply(kernel) {
    kernel.hooks.uploadBlob.tapPromise({ name: 'blobs', stage: STAGE.native }, async (blob, session) => {
      if (session.state.get(ROUTE_ABSENT)) return undefined;
      const head = await session.http.head(`${BLOBS_ROUTE}/${blob.sha256}`, [200, 404, 405, 501]);
      if (head.status === 200) return { via: 'blob', alreadyPresent: true };
      if (head.status !== 404 || !(await routePresent(session))) return declined(session);
      try {
        const { status } = await session.http.postStream(
          BLOBS_ROUTE,
          () => createReadStream(blob.path, { highWaterMark: BLOB_READ_CHUNK }),
          {
            'content-type': 'application/octet-stream',
            'content-length': String(blob.size),
            'x-content-sha256': blob.sha256,
          },
        );
        return { via: 'blob', alreadyPresent: status === 200 };
      } catch (error) {
        if (isRouteMissing(error)) return declined(session);
        throw error;
      }
    });

    kernel.hooks.fetchBlob.tapPromise({ name: 'blobs', stage: STAGE.native }, async (blob, session) => {
      const size = await session.http.download(`${BLOBS_ROUTE}/${blob.sha256}`, (body) => writeVerifiedBlob(body, blob.sha256, blob.path));
      return { size };
    });
  },
};

/**
 * A HEAD 404 means "not held" on a server with the route and "no such route" on
 * one without. A sha the route must refuse tells them apart without a write:
 * 400 invalid_sha comes only from the route itself.
 */
async function routePresent(session: SyncSession): Promise<boolean> {
  const probe = await session.http.head(`${BLOBS_ROUTE}/probe`, [400, 404, 405, 501]);
  return probe.status === 400;
}

function declined(session: SyncSession): undefined {
  session.state.set(ROUTE_ABSENT, true);
  return undefined;
}

export default blobsPlugin;
