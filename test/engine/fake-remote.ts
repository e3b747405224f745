import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { withContentId } from '../../src/core/content-id.js';
import { ExitCode, TracerError } from '../../src/core/errors.js';
import { jsonlFamilyStore } from '../../src/engine/jsonl-family-store.js';
import { runPull, type PullReport } from '../../src/engine/pull.js';
import { runPush, type PushReport } from '../../src/engine/push.js';
import { sessionFor } from '../../src/engine/session.js';
import { readSyncStateFile } from '../../src/engine/sync-state.js';
import { Kernel, type TracerPlugin } from '../../src/kernel/kernel.js';
import type { PageAnswer, SendAnswer, Transport } from '../../src/kernel/transport.js';
import type { Project } from '../../src/store/project.js';
import { tempDir } from '../helpers/cli.js';
import { appendRows, readRows } from '../helpers/sync-fixtures.js';
import { remote } from '../plugins/harness.js';

/**
 * A remote in memory whose every request has a scripted fate, and a family
 * whose store yields its lines as slowly as a test asks: the push and pull
 * engines under faults, with timings no real server can be made to keep.
 */

/** What happens to one upload request (or one page request). */
export type Fate =
  /** Answered. */
  | 'ok'
  /** Refused at once, as a connection is refused by a port nobody listens on. */
  | 'fail-fast'
  /** Fails after a while, as a request that times out. */
  | 'fail-slow'
  /** The remote applies the batch, then the answer is lost on the way back. */
  | 'lost'
  /** 401: the token was revoked. */
  | 'unauthorized';

export const FATES: readonly Fate[] = ['ok', 'fail-fast', 'fail-slow', 'lost', 'unauthorized'];

export const FAMILY = 'items';
export const MANIFEST_KEY = 'items_ids';
export const FILE = 'items.jsonl';
/** Small batches, so a few hundred rows make many requests. */
export const ITEMS_PER_REQUEST = 20;
export const PAGE_SIZE = 25;

function failure(fate: Exclude<Fate, 'ok'>): TracerError {
  if (fate === 'unauthorized') return new TracerError('unauthorized', 'The remote refused the token (401).', { exitCode: ExitCode.auth });
  if (fate === 'fail-slow') return new TracerError('timeout', 'The remote did not answer in time.', { exitCode: ExitCode.network });
  return new TracerError('network_error', 'Cannot reach the remote (ECONNREFUSED).', { exitCode: ExitCode.network });
}

export class FakeRemote {
  /** Rows held, in the order they were first stored. */
  readonly rows: Record<string, unknown>[] = [];
  /** How many times each id was stored as new: more than once would be a duplicate row. */
  readonly inserts = new Map<string, number>();
  /** Ids whose batch was answered: the only ones a client may record as synced. */
  readonly acknowledged = new Set<string>();
  sends = 0;
  pages = 0;
  failedSends = 0;

  constructor(
    private readonly sendFate: (index: number) => Fate = () => 'ok',
    private readonly pageFate: (index: number) => Fate = () => 'ok',
  ) {}

  store(texts: readonly string[]): SendAnswer {
    let inserted = 0;
    for (const text of texts) {
      const record = JSON.parse(text) as Record<string, unknown>;
      const id = String(record.id);
      if (this.inserts.has(id)) continue;
      this.inserts.set(id, 1);
      this.rows.push(record);
      inserted += 1;
    }
    return { received: texts.length, inserted, duplicates: texts.length - inserted };
  }

  transport(): Transport {
    return {
      limits: { itemsPerRequest: ITEMS_PER_REQUEST, bytesPerRequest: 1 << 20, pageSize: PAGE_SIZE },
      location: 'fake://remote',
      identify: async () => ({ org_slug: 'acme', project_slug: 'web', scope: 'project' }),
      send: async (_family, texts) => {
        const fate = this.sendFate(this.sends++);
        if (fate === 'ok') {
          await sleep(2);
          const answer = this.store(texts);
          for (const text of texts) this.acknowledged.add(String(JSON.parse(text).id));
          return answer;
        }
        this.failedSends += 1;
        if (fate === 'fail-slow') await sleep(15);
        if (fate === 'lost') {
          await sleep(2);
          this.store(texts);
        }
        throw failure(fate === 'lost' ? 'fail-fast' : fate);
      },
      page: async (_family, query): Promise<PageAnswer> => {
        const fate = this.pageFate(this.pages++);
        if (fate !== 'ok') {
          if (fate === 'fail-slow') await sleep(15);
          throw failure(fate === 'lost' ? 'fail-fast' : fate);
        }
        await sleep(1);
        const from = query.after === undefined ? 0 : Number(query.after);
        const items = this.rows.slice(from, from + query.limit);
        const next = from + items.length;
        return { items, next: String(next), hasMore: next < this.rows.length };
      },
      hasBlob: async () => false,
      putBlob: async () => ({ alreadyPresent: false }),
      getBlob: async () => {
        throw new Error('no blobs here');
      },
      yieldToRequests: () => new Promise((resolve) => setImmediate(resolve)),
      close: () => undefined,
    };
  }
}

/** A family in `items.jsonl` whose scan waits `readDelayMs` every `every` lines, as a loaded machine reads. */
function slowFamily(readDelayMs: number, every = 5): TracerPlugin {
  return {
    name: 'slow-items',
    apply(kernel) {
      kernel.registerFamily({
        name: FAMILY,
        idMember: 'id',
        required: ['id', 'ts'],
        file: FILE,
        storage: [FILE],
        store: (dir, definition) => {
          const store = jsonlFamilyStore(dir, definition);
          return {
            ...store,
            async scan(mark, warn) {
              const scan = await store.scan!(mark, warn);
              async function* slowly() {
                let count = 0;
                for await (const line of scan.lines) {
                  if (readDelayMs > 0 && ++count % every === 0) await sleep(readDelayMs);
                  yield line;
                }
              }
              return { resumedFrom: scan.resumedFrom, lines: slowly() };
            },
          };
        },
      });
    },
  };
}

export interface LocalProject {
  project: Project;
  home: string;
}

export function localProject(): LocalProject {
  const dir = tempDir('tracer-faults-');
  return {
    project: { id: 'project-faults', dir, anchor: `${dir}/tracer-id`, git: { worktree: dir, gitDir: dir, commonDir: dir } },
    home: tempDir('tracer-faults-home-'),
  };
}

export function addItems(local: LocalProject, from: number, count: number): Record<string, unknown>[] {
  // Content ids: pull checks every row's id against its content.
  const rows = Array.from({ length: count }, (_, n) => withContentId({ id: '', ts: '2026-11-01T00:00:00.000Z', n: from + n }, 'id'));
  appendRows(join(local.project.dir, FILE), rows);
  return rows;
}

export const localRows = (local: LocalProject) => readRows(join(local.project.dir, FILE));

async function kernelFor(local: LocalProject, fake: FakeRemote, readDelayMs: number): Promise<Kernel> {
  const kernel = new Kernel({ home: local.home, cwd: local.project.dir, env: {}, project: local.project });
  await kernel.use(slowFamily(readDelayMs));
  await kernel.use({
    name: 'fake-transport',
    apply: (k) => void k.hooks.connect.tap('fake-transport', () => fake.transport()),
  });
  return kernel;
}

export type Ran<T> = { ok: true; report: T } | { ok: false; error: TracerError };

async function ran<T>(work: Promise<T>): Promise<Ran<T>> {
  try {
    return { ok: true, report: await work };
  } catch (error) {
    if (!(error instanceof TracerError)) throw error;
    return { ok: false, error };
  }
}

export async function push(local: LocalProject, fake: FakeRemote, readDelayMs = 0): Promise<Ran<PushReport>> {
  const kernel = await kernelFor(local, fake, readDelayMs);
  const { session, close } = await sessionFor(kernel, local.project, remote(), {
    direction: 'push',
    push: { full: true, dryRun: false },
  });
  try {
    return await ran(runPush(kernel, session));
  } finally {
    close();
  }
}

export async function pull(local: LocalProject, fake: FakeRemote): Promise<Ran<PullReport>> {
  const kernel = await kernelFor(local, fake, 0);
  const { session, close } = await sessionFor(kernel, local.project, remote(), { direction: 'pull' });
  try {
    return await ran(runPull(kernel, session));
  } finally {
    close();
  }
}

/** What sync-state.json says of the remote: the ids listed as synced, the scan mark and the pull cursor. */
export async function savedState(local: LocalProject) {
  const record = (await readSyncStateFile(local.project.dir)).remotes.origin;
  return {
    synced: new Set(record?.synced?.[MANIFEST_KEY] ?? []),
    markRecords: record?.scanned?.[FAMILY]?.records,
    cursor: record?.cursors?.[FAMILY],
  };
}
