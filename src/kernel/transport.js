import { ExitCode, TracerError } from '../core/errors.js';
/**
 * The remote has no such feature (an older server): the engine asks the
 * `routeMissing` hook whether a plugin falls back. `feature` is a family name,
 * `blobs` or `whoami`.
 */
export class FeatureMissing extends TracerError {
  feature;
  where;
  constructor(feature, where, message) {
    super('route_unsupported', message, { exitCode: ExitCode.failure });
    this.feature = feature;
    this.where = where;
  }
}
/**
 * The remote refused records of a batch as invalid. `items` names the refused
 * ones by index with a reason each, when the remote said; otherwise the whole
 * batch was refused and the engine halves it until the culprits stand alone.
 * `needsBlobs`: pointer rows were refused because the remote lacks their bytes.
 * Also thrown by putBlob / getBlob when the remote refuses that one blob (too
 * large, unknown, bytes not matching their sha): that row stays unsynced, the
 * run goes on. Failures to reach the remote at all are other TracerErrors.
 */
export class ItemsRefused extends TracerError {
  items;
  needsBlobs;
  constructor(code, message, items = new Map(), needsBlobs = false) {
    super(code, message, { exitCode: ExitCode.validation });
    this.items = items;
    this.needsBlobs = needsBlobs;
  }
}
export function isFeatureMissing(error) {
  return error instanceof FeatureMissing;
}
export function isItemsRefused(error) {
  return error instanceof ItemsRefused;
}
