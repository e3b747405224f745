import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook } from 'tapable';
/**
 * Every kernel hook, in one place. Plugins tap them with `{name, stage}`; a lower
 * stage runs first, so a fallback taps the same bail hook at a later stage than
 * the native path and only answers when the native plugin declines.
 */
export function createHooks() {
  return Object.freeze({
    /** A remote name (or none) to record + token. Bail: the first tap that returns a remote wins. */
    resolveRemote: new AsyncSeriesBailHook(['query']),
    /** Opens the transport to a resolved remote. Bail: the first plugin that speaks the remote's URL answers (HTTP: the http plugin). */
    connect: new AsyncSeriesBailHook(['remote', 'request']),
    /** Before any push, and in doctor / remote add / project create: checks that may refuse the run. Series: every tap runs, the first throw stops it. */
    preflight: new AsyncSeriesHook(['session']),
    /** Before a family is pushed. Waterfall: each tap refines the plan the previous one returned. */
    beforeFamily: new AsyncSeriesWaterfallHook(['plan', 'session']),
    /** Moves one blob to the remote. Bail: the first tap that returns a result wins; none → the push fails. */
    uploadBlob: new AsyncSeriesBailHook(['blob', 'session']),
    /** Fetches one blob into the local cache, verified. Bail: the first tap that returns a result wins; none → the row stays unpulled. */
    fetchBlob: new AsyncSeriesBailHook(['blob', 'session']),
    /** A route answered as absent (old server). Bail: the first tap that answers picks the fallback; none → the run fails. */
    routeMissing: new AsyncSeriesBailHook(['missing', 'session']),
    /** After one family's pulled rows are merged into the local store. Series: notifications, in tap order. */
    afterPull: new AsyncSeriesHook(['result', 'session']),
    /** Progress of a push or pull, for displays. Sync: observers only, in tap order. */
    progress: new SyncHook(['event']),
  });
}
