import { createReadStream } from 'node:fs';
import type { TracerPlugin } from '../kernel/kernel.js';
import { STAGE } from '../kernel/stages.js';
import type { SyncSession } from '../kernel/types.js';
import { BLOB_HEAD_STATUSES, blobRoutePresent, blobUploadHeaders } from '../protocol/blobs.js';
import { isRouteMissing } from '../protocol/problem.js';
import { blobRoute, BLOBS_ROUTE } from '../protocol/routes.js';
import { BLOB_READ_CHUNK, writeVerifiedBlob } from '../sync/blob-file.js';

/**
 * The native blob path (spec §4.3, wire contract "Blobs"): HEAD the sha, POST
 * the bytes streamed from the cache file when the service lacks them, and on
 * pull GET them into the cache, verified before the rename. When the server has
 * no blob route at all it declines, so a fallback (blobs-missing) may answer.
 */
const ROUTE_ABSENT = 'blobs:route-absent';

const blobsPlugin: TracerPlugin = {
  name: 'blobs',
  apply(kernel) {
    kernel.hooks.uploadBlob.tapPromise({ name: 'blobs', stage: STAGE.native }, async (blob, session) => {
      if (session.state.get(ROUTE_ABSENT)) return undefined;
      const head = await session.http.head(blobRoute(blob.sha256), BLOB_HEAD_STATUSES);
      if (head.status === 200) return { via: 'blob', alreadyPresent: true };
      if (head.status !== 404 || !(await blobRoutePresent(session.http))) return declined(session);
      try {
        const { status } = await session.http.postStream(
          BLOBS_ROUTE,
          () => createReadStream(blob.path, { highWaterMark: BLOB_READ_CHUNK }),
          blobUploadHeaders(blob.sha256, blob.size),
        );
        return { via: 'blob', alreadyPresent: status === 200 };
      } catch (error) {
        if (isRouteMissing(error)) return declined(session);
        throw error;
      }
    });

    kernel.hooks.fetchBlob.tapPromise({ name: 'blobs', stage: STAGE.native }, async (blob, session) => {
      const size = await session.http.download(blobRoute(blob.sha256), (body) => writeVerifiedBlob(body, blob.sha256, blob.path));
      return { size };
    });
  },
};

function declined(session: SyncSession): undefined {
  session.state.set(ROUTE_ABSENT, true);
  return undefined;
}

export default blobsPlugin;
