// A custom artifact family for tracer: code-review notes, one JSON line each in
// `review-notes.jsonl` in the project folder, identified by a content id in `id`
// (wire contract "Content ids"), synced on `/api/v1/sync/review-notes`.
//
// The same module enables the family on both sides, once compiled
// (`npx tsc -p examples/plugins` writes examples/plugins/dist/review-notes.js):
//   client:  tracer config set plugins /path/to/dist/review-notes.js
//   service: tracer serve --plugins /path/to/dist/review-notes.js
// push, pull, sync and status then treat it like a built-in family (it runs
// after the built-ins, in plugin list order; `push --only review-notes` works).
// A guide to writing one: docs/plugins.md.
import type { TracerPlugin } from 'tracer/plugin';

const reviewNotes: TracerPlugin = {
  name: 'review-notes',
  apply(kernel) {
    kernel.registerFamily({
      name: 'review-notes',
      idMember: 'id',
      required: ['id', 'ts', 'commit', 'note'],
      members: { id: 'sha256', ts: 'timestamp', commit: 'commit', note: 'string' },
      file: 'review-notes.jsonl',
      storage: ['review-notes.jsonl'],
      // Its list of pushed ids in sync-state.json.
      manifestKey: 'review_note_ids',
    });
  },
};

export default reviewNotes;
