// The local search index follows a pull (issue 32): once a pull has brought
// rows and applied what the remote forgot (tombstones, afterTransfer), the
// index is brought level with the store — new transcripts, summaries and
// commit links read, forgotten conversations taken out. Only an index that
// exists is updated; the first `tracer search` builds it. Switched off, the
// index is brought level by the next search or why instead.
import { updateSearchIndex, type TracerPlugin } from '../plugin/index.js';

const searchIndexPlugin: TracerPlugin = {
  name: 'search-index',
  apply(kernel) {
    kernel.hooks.afterTransfer.tapPromise('search-index', async (session) => {
      if (session.direction !== 'pull' || session.dryRun) return;
      const { env, cwd, home } = kernel.context;
      try {
        await updateSearchIndex({
          projectDir: session.project.dir,
          git: { cwd: session.project.git.worktree, env },
          formats: { home, cwd, env },
        });
      } catch (error) {
        // The pulled rows are stored whatever happens here; the next search brings the index level.
        session.warn({
          code: 'search_index_failed',
          message: `The pulled rows are stored, but the search index was not updated: ${(error as Error).message.replace(/\.$/, '')}. The next tracer search updates it`,
        });
      }
    });
  },
};

export default searchIndexPlugin;
