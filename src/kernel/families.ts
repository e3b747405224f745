// An artifact family as data: everything the engine and the service rely on to
// store, identify and move its records. Family plugins register these; the kernel
// keeps them in registration order (plugins.json order) and never names one.
import { ExitCode, TracerError } from '../core/errors.js';
import type { MemberKind } from '../core/member-checks.js';
import type { FamilyStore } from './types.js';

export type { MemberKind };

export interface FamilyDefinition {
  /** `--only` value, the family's name on the wire and in messages. */
  name: string;
  /**
   * The member that holds the record's content id (wire contract "Content ids"),
   * or `null` for a family identified by members instead (conversations).
   */
  idMember: string | null;
  /** Members that together identify a record when there is no content id. */
  identity?: readonly string[];
  /**
   * Members every record must carry: the id member (or identity members) and `ts`,
   * which `--since` and the service's ordering read.
   */
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
   * breaks one; members not named here are kept as they are.
   */
  members?: Readonly<Record<string, MemberKind>>;
  /** Its list of synced ids in sync-state.json `synced` (default `<name>_ids`, dashes as underscores). */
  manifestKey?: string;
  /** A family that runs whenever this one is selected with `--only` (as conversations follow traces). */
  follows?: string;
  /** Its local storage, client side; default: the JSONL file named by `file`. */
  store?: (projectDir: string, definition: RegisteredFamily) => FamilyStore;
  /**
   * Where its records hold text that came from an agent or a person: redaction
   * scans it on the way out, and the service refuses a record that still holds a
   * secret there (`secret_detected`).
   */
  text?: TextContent;
  /** What `tracer forget` and the service's retention may take back of it; without it, nothing. */
  privacy?: FamilyPrivacy;
}

export interface TextContent {
  /** String members holding such text (a summary's `summary`). */
  members?: readonly string[];
  /** The blob's bytes are such text (a transcript). */
  blob?: boolean;
  /** Every member the family does not type (`members` kinds) may hold such text too: the wire contract leaves them free. */
  untyped?: boolean;
}

/** How a family's rows belong to conversations, for forget, retention and token roles (docs/server.md, "Privacy and retention"). */
export interface FamilyPrivacy {
  /**
   * `content`: text from the conversation (transcripts, summaries), forgotten by
   * default and never pulled by a `push` token; `trace`: forgotten only with
   * `--with-traces`; `attribution`: only with `--with-attribution`.
   */
  kind: 'content' | 'trace' | 'attribution';
  /** The conversations a record belongs to (none when it names none). */
  conversations(record: Record<string, unknown>): string[];
  /** The agent that recorded it, when the record says. */
  agent?(record: Record<string, unknown>): string | undefined;
}

/** A family as the kernel holds it: defaults filled in, and which plugin registered it. */
export interface RegisteredFamily extends FamilyDefinition {
  readonly manifestKey: string;
  readonly plugin: string;
}

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

/** Checks a definition against the families already registered; the error names both plugins when two collide. */
export function registeredFamily(definition: FamilyDefinition, plugin: string, known: readonly RegisteredFamily[]): RegisteredFamily {
  const invalid = (why: string) =>
    new TracerError(
      'invalid_family',
      `Plugin "${plugin}" registers an invalid family: ${why}; fix the plugin or switch it off in plugins.json.`,
      {
        exitCode: ExitCode.localState,
        plugin,
      },
    );
  const name = definition.name;
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(name)) throw invalid(`the name "${name}" must be lowercase letters, digits and "-"`);
  const manifestKey = definition.manifestKey ?? `${name.replace(/-/g, '_')}_ids`;
  if (!/^[a-z][a-z0-9_]*$/.test(manifestKey))
    throw invalid(`family "${name}" has the manifest key "${manifestKey}", which is not snake_case`);
  if (definition.idMember === null && !definition.identity?.length) throw invalid(`family "${name}" needs an idMember or identity members`);
  for (const member of [...(definition.idMember === null ? definition.identity! : [definition.idMember]), 'ts']) {
    if (!definition.required.includes(member)) throw invalid(`family "${name}" must list "${member}" among its required members`);
  }
  // `file` is appended to as well as listed: it must stay inside the project folder just like `storage`.
  for (const path of definition.file === undefined ? definition.storage : [...definition.storage, definition.file]) {
    if (path === '' || path.startsWith('/') || path.startsWith('\\') || path.split(/[\\/]/).includes('..'))
      throw invalid(`family "${name}" has the storage path "${path}", which leaves the project folder`);
  }
  const clash = known.find((family) => family.name === name || family.manifestKey === manifestKey);
  if (clash) {
    const what =
      clash.name === name ? `the family "${name}"` : `the manifest key "${manifestKey}" (families "${clash.name}" and "${name}")`;
    throw new TracerError(
      'duplicate_family',
      `Plugins "${clash.plugin}" and "${plugin}" both register ${what}; switch one of them off in plugins.json (see tracer plugins).`,
      { exitCode: ExitCode.localState, plugin },
    );
  }
  return Object.freeze({ ...definition, manifestKey, plugin });
}
