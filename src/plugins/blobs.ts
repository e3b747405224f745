// The native blob path (spec §4.3): ask whether the remote holds the bytes, send
// them streamed from the cache file when it does not, and on pull fetch them
// into the cache, verified before the rename. When the remote keeps no blobs at
// all it declines, so a fallback (blobs-missing) may answer.
import { createReadStream } from 'node:fs';
import { BLOB_READ_CHUNK, isFeatureMissing, STAGE, writeVerifiedBlob, type SyncSession, type TracerPlugin } from '../plugin/index.js';

/** Where a session remembers that its remote keeps no blobs, so the next blob does not ask again. */
const NO_BLOBS = 'blobs:absent';

const blobsPlugin: TracerPlugin = {
  name: 'blobs',
  apply(kernel) {
    kernel.hooks.uploadBlob.tapPromise({ name: 'blobs', stage: STAGE.native }, async (blob, session) => {
      if (session.state.get(NO_BLOBS)) return undefined;
      const { transport } = session;
      try {
        if (await transport.hasBlob(blob.sha256)) return { via: 'blob', alreadyPresent: true };
        const { alreadyPresent } = await transport.putBlob(blob.sha256, blob.size, () =>
          createReadStream(blob.path, { highWaterMark: BLOB_READ_CHUNK }),
        );
        return { via: 'blob', alreadyPresent };
      } catch (error) {
        if (isFeatureMissing(error)) return declined(session);
        throw error;
      }
    });

    kernel.hooks.fetchBlob.tapPromise({ name: 'blobs', stage: STAGE.native }, async (blob, session) => {
      const size = await session.transport.getBlob(blob.sha256, (body) => writeVerifiedBlob(body, blob.sha256, blob.path));
      return { size };
    });
  },
};

function declined(session: SyncSession): undefined {
  session.state.set(NO_BLOBS, true);
  return undefined;
}

export default blobsPlugin;
