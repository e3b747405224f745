/**
 * An artifact family as data: what both the client and the service need to know
 * to store, identify and move its records. Family plugins register these; the
 * kernel keeps them in registration order (plugins.json order) and never names one.
 */
export interface FamilyDefinition {
  /** `--only` value and the name used in sync-state.json and messages. */
  name: string;
  /** Upload and pull route, relative to the API root (`/api/v1/sync/<name>` for the spec's families). */
  route: string;
  /**
   * The member that holds the record's content id (wire contract "Content ids"),
   * or `null` for a family identified by members instead (conversations).
   */
  idMember: string | null;
  /** Members that together identify a record when there is no content id. */
  identity?: readonly string[];
  /** Members every record must carry, the id member included. */
  required: readonly string[];
  /** Paths under the project folder that hold this family's local data. */
  storage: readonly string[];
  /** The JSONL file its records are appended to, when it has one. */
  file?: string;
  /**
   * Records whose bytes may travel as a content-addressed blob (wire contract
   * "Upload, per family", conversations): inline as base64 below `inlineBelow`
   * bytes, else a pointer row accepted only once the blob is held.
   */
  blob?: BlobContent;
  /**
   * What some members must look like beyond being present (see core/member-checks.ts),
   * e.g. `{ ts: 'timestamp', commit: 'commit' }`. The service refuses a record that
   * breaks one (422 invalid_item); members not named here are kept as they are.
   */
  members?: Readonly<Record<string, MemberKind>>;
}

/** The shapes a family can demand of a member; checked by core/member-checks.ts. */
export type MemberKind = 'string' | 'timestamp' | 'commit' | 'sha256' | 'byte-size' | 'base64' | 'string-array';

export interface BlobContent {
  /** Member holding the lowercase hex SHA-256 of the bytes. */
  shaMember: string;
  /** Member holding the byte length. */
  sizeMember: string;
  /** Member holding the bytes, base64, when they go inline. */
  inlineMember: string;
  /** Sizes strictly below this go inline; the others go through the blob routes. */
  inlineBelow: number;
}

export function defaultRoute(name: string): string {
  return `/api/v1/sync/${name}`;
}

export function checkFamily(definition: FamilyDefinition, known: readonly FamilyDefinition[]): void {
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(definition.name))
    throw new Error(`family name "${definition.name}" must be lowercase letters, digits and "-"`);
  if (known.some((family) => family.name === definition.name)) throw new Error(`family "${definition.name}" is registered twice`);
  if (!/^\/api\/v1\/[a-z0-9/-]+$/.test(definition.route))
    throw new Error(`family "${definition.name}" route "${definition.route}" must be a path under /api/v1/`);
  if (known.some((family) => family.route === definition.route))
    throw new Error(`family "${definition.name}" reuses the route ${definition.route}`);
  if (definition.idMember === null && !definition.identity?.length)
    throw new Error(`family "${definition.name}" needs an idMember or identity members`);
  // `file` is appended to as well as listed: it must stay inside the project folder just like `storage`.
  for (const path of definition.file === undefined ? definition.storage : [...definition.storage, definition.file]) {
    if (path === '' || path.startsWith('/') || path.startsWith('\\') || path.split(/[\\/]/).includes('..'))
      throw new Error(`family "${definition.name}" storage path "${path}" must stay inside the project folder`);
  }
}
