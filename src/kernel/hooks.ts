// Every kernel hook, in one place. Plugins tap them with `{name, stage}`; a lower
// stage runs first, so a fallback taps the same bail hook at a later stage than
// the native path and only answers when the native plugin declines. The design
// card's five (resolveRemote, preflight, beforeFamily, uploadBlob, afterPull) come
// first; each other hook says why a plugin needs it.
// Each class from its own file (tapable-files.d.ts says why).
import AsyncSeriesBailHook from 'tapable/lib/AsyncSeriesBailHook.js';
import AsyncSeriesHook from 'tapable/lib/AsyncSeriesHook.js';
import AsyncSeriesWaterfallHook from 'tapable/lib/AsyncSeriesWaterfallHook.js';
import SyncHook from 'tapable/lib/SyncHook.js';
import type {
  BlobFetch,
  BlobFetchResult,
  BlobUpload,
  BlobUploadResult,
  FamilyPlan,
  FamilyPullResult,
  MissingRoute,
  RemoteQuery,
  ResolvedRemote,
  RouteFallback,
  SyncEvent,
  SyncSession,
} from './types.js';
import type { ConnectRequest, Transport } from './transport.js';

/** The same classes for a plugin's own hooks (webpack's getCompilationHooks pattern), so they load tapable once. */
export { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook };

export function createHooks() {
  return Object.freeze({
    /** A remote name (or none) to record + token. Bail: the first tap that returns a remote wins. */
    resolveRemote: new AsyncSeriesBailHook<[RemoteQuery], ResolvedRemote | undefined>(['query']),
    /** Before any push, and in doctor / remote add / project create: checks that may refuse the run. Series: every tap runs, the first throw stops it. */
    preflight: new AsyncSeriesHook<[SyncSession]>(['session']),
    /** Before a family is pushed. Waterfall: each tap refines the plan the previous one returned. */
    beforeFamily: new AsyncSeriesWaterfallHook<[FamilyPlan, SyncSession]>(['plan', 'session']),
    /** Moves one blob to the remote. Bail: the first tap that returns a result wins; none → the push fails. */
    uploadBlob: new AsyncSeriesBailHook<[BlobUpload, SyncSession], BlobUploadResult | undefined>(['blob', 'session']),
    /** After one family's pulled rows are merged into the local store. Series: notifications, in tap order. */
    afterPull: new AsyncSeriesHook<[FamilyPullResult, SyncSession]>(['result', 'session']),

    /** Why: the transport is a plugin (HTTP today, another one tomorrow). Opens it for a resolved remote; bail: the first plugin that speaks the remote's URL answers. */
    connect: new AsyncSeriesBailHook<[ResolvedRemote, ConnectRequest], Transport | undefined>(['remote', 'request']),
    /** Why: pull meets rows that only point at bytes; the plugin that uploads blobs also knows how to fetch them. Bail: the first answer wins; none → the row stays unpulled. */
    fetchBlob: new AsyncSeriesBailHook<[BlobFetch, SyncSession], BlobFetchResult | undefined>(['blob', 'session']),
    /** Why: old-server fallbacks are plugins that decide whether a missing feature is skipped (with or without a warning) or stops the run. Bail: the first answer picks; none → the run fails. */
    routeMissing: new AsyncSeriesBailHook<[MissingRoute, SyncSession], RouteFallback | undefined>(['missing', 'session']),
    /** Why: some state is shared by every family (what the remote forgot): plugins bring it in line before a push's or a pull's families move (after the preflight). Series, in tap order; a throw stops the run. */
    beforeTransfer: new AsyncSeriesHook<[SyncSession]>(['session']),
    /** Why: the same, once every family has moved (what changed on the remote meanwhile). Series, in tap order. */
    afterTransfer: new AsyncSeriesHook<[SyncSession]>(['session']),
    /** Why: displays (a live task list, plain lines) observe a run without the engine knowing them; emitted by src/engine/progress.ts alone. Sync: observers only. */
    progress: new SyncHook<[SyncEvent]>(['event']),
  });
}

export type KernelHooks = ReturnType<typeof createHooks>;
export type KernelHookName = keyof KernelHooks;
