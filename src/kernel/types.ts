import type { ParsedRemoteUrl } from '../core/remote-url.js';
import type { TracerWarning } from '../core/errors.js';
import type { CredentialPurpose } from '../store/credentials.js';
import type { Project } from '../store/project.js';
import type { RemoteRecord } from '../store/remotes.js';
import type { FamilyDefinition } from './families.js';

/** Values that flow through the kernel's hooks (see hooks.ts). */

export interface RemoteQuery {
  project: Project;
  /** `--remote`, when given. */
  name?: string;
  purpose: CredentialPurpose;
}

export interface ResolvedRemote {
  name: string;
  record: RemoteRecord;
  target: ParsedRemoteUrl;
  /** Where `/api/v1/...` routes live for this remote. */
  apiRoot: string;
  token?: string;
  /** Where the token came from (`config.json`, `env:VAR`, `none`), for messages. */
  tokenSource: string;
  /** Only for project creation (spec §5.2 rule 3). */
  adminSecret?: string;
}

/** One push or pull against one remote. */
export interface SyncSession {
  direction: 'push' | 'pull';
  project: Project;
  remote: ResolvedRemote;
  dryRun: boolean;
  warn(warning: TracerWarning): void;
}

/** What a push of one family will send; beforeFamily taps narrow it. */
export interface FamilyPlan {
  family: FamilyDefinition;
  /** Lower bound on item `ts` (`--since`). */
  since?: string;
  /** Every filter must accept a record for it to be sent. */
  filters: Array<(record: Record<string, unknown>) => boolean>;
  /** Set to a reason to leave the whole family out of this run. */
  skip?: string;
}

export interface BlobUpload {
  sha256: string;
  size: number;
  /** The cache file holding the bytes. */
  path: string;
}

export interface BlobUploadResult {
  /** How the bytes travelled, e.g. the blob route or inline. */
  via: string;
  /** True when the service already held them. */
  alreadyPresent: boolean;
}

export interface FamilyPullResult {
  family: FamilyDefinition;
  received: number;
  inserted: number;
}
