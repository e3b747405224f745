import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `$TRACER_HOME`, default `~/.tracer` (spec §2.1). */
export function tracerHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.TRACER_HOME?.trim();
  return configured ? resolve(configured) : join(homedir(), '.tracer');
}

/** The global tree of spec §2.1 that this code reads and writes. */
export function homePaths(home: string) {
  return {
    home,
    config: join(home, 'config.json'),
    registry: join(home, 'projects.json'),
    plugins: join(home, 'plugins.json'),
    /** An organization's own token prices (negotiated rates), over the price table's (docs/attribution.md). */
    prices: join(home, 'prices.json'),
    projects: join(home, 'projects'),
  };
}

/**
 * Per-project files that are not an artifact family's (spec §2.2). A family's
 * own files are declared by its plugin.
 */
export const PROJECT_STATE_FILES = {
  config: 'project-config.json',
  remotes: 'remotes.json',
  syncState: 'sync-state.json',
  /** A cache of sync-state.json without its manifests (src/engine/sync-state-head.ts). */
  syncStateHead: 'sync-state.head.json',
  sessionState: 'session-state.json',
  attributionState: 'attribution-state.json',
  /** Figures derived from the data (token usage, costs, the fate of AI lines): losing them costs only time (src/cost/). */
  cache: 'cache',
} as const;

/** Files that hold secrets or remote bindings: never readable by other users (spec §2.1, §2.2). */
export const PRIVATE_FILE_MODE = 0o600;
export const PUBLIC_FILE_MODE = 0o644;
export const PRIVATE_DIR_MODE = 0o700;

/** `<dir>/<sha[:2]>/<sha>`: the cache layout of spec §2.2. */
export function blobCachePath(cacheDir: string, sha256: string): string {
  return `${cacheDir}/${sha256.slice(0, 2)}/${sha256}`;
}
