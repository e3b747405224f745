// Old servers without blob routes (spec §4.3, §9): large transcripts go inline on
// their family's route instead, each fallback recorded in push-errors.log; the
// push still exits 0. Switched off, such a server makes a push with a large
// transcript fail with blobs_unsupported.
import { STAGE, type TracerPlugin } from '../plugin/index.js';

const blobsMissing: TracerPlugin = {
  name: 'blobs-missing',
  apply(kernel) {
    kernel.hooks.uploadBlob.tapPromise({ name: 'blobs-missing', stage: STAGE.fallback }, async (blob, session) => {
      await session.log({
        code: 'blob_fallback_inline',
        message: `The server of remote "${session.remote.name}" has no blob route; the ${blob.size}-byte ${blob.family.name} blob ${blob.sha256} was sent inline instead.`,
        family: blob.family.name,
        item: blob.sha256,
      });
      return { via: 'inline', alreadyPresent: false };
    });
  },
};

export default blobsMissing;
