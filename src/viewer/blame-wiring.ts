import type { BlameFile } from './blame-source.js';

/**
 * The one place where the viewer gets issue 14's blame module. Until it is
 * merged this answers undefined and the blame page says blame is unavailable;
 * the integrator replaces the body with `(await import('../blame/...')).blameFile`.
 */
export async function loadBlameFile(): Promise<BlameFile | undefined> {
  return undefined;
}
