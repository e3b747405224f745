// One spooled agent event, as bin/tracer-hook.sh writes it:
//
//   tracer-spool 1\n
//   <agent>\n<event>\n<the folder the hook ran in>\n
//   NAME=value\n ...   the variables a fold must see as the hook saw them
//   \n
//   <the payload, byte for byte as the agent passed it on stdin>
//
// The entry's modification time is when the agent reported the event: the
// trace row's `ts`, and the order entries are folded in.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PAYLOAD_CAP_BYTES, type PayloadRead } from '../hook/payload.js';

const MAGIC = 'tracer-spool 1';
/** The variables the hook records: where the user's home and the repository are. Nothing else of the agent's environment is kept. */
export const SPOOLED_VARIABLES = ['HOME', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR'] as const;

export interface SpoolEntry {
  agent: string;
  event: string;
  cwd: string;
  /** The recorded variables; one not listed was unset in the hook. */
  variables: Partial<Record<(typeof SPOOLED_VARIABLES)[number], string>>;
  payload: PayloadRead;
}

/** undefined when the bytes are not an entry (written by something else, or cut short). */
export function parseSpoolEntry(bytes: Buffer): SpoolEntry | undefined {
  const lines: string[] = [];
  let offset = 0;
  for (;;) {
    const end = bytes.indexOf(0x0a, offset);
    if (end === -1) return undefined;
    const line = bytes.subarray(offset, end).toString('utf8');
    offset = end + 1;
    if (line === '' && lines.length >= 4) break;
    lines.push(line);
    if (lines.length > 4 + SPOOLED_VARIABLES.length) return undefined;
  }
  const [magic, agent, event, cwd, ...assignments] = lines;
  if (magic !== MAGIC || !agent || !event || !cwd?.startsWith('/')) return undefined;
  const variables: SpoolEntry['variables'] = {};
  for (const assignment of assignments) {
    const equals = assignment.indexOf('=');
    const name = assignment.slice(0, equals) as (typeof SPOOLED_VARIABLES)[number];
    if (equals === -1 || !SPOOLED_VARIABLES.includes(name)) return undefined;
    variables[name] = assignment.slice(equals + 1);
  }
  const size = bytes.length - offset;
  const payload: PayloadRead =
    size === 0
      ? { kind: 'none' }
      : size > PAYLOAD_CAP_BYTES
        ? { kind: 'too_large', bytes: size }
        : { kind: 'ok', text: bytes.subarray(offset).toString('utf8') };
  return { agent, event, cwd, variables, payload };
}

/** The environment an entry is folded in: this process's, with the hook's recorded variables in place of its own. */
export function entryEnvironment(entry: SpoolEntry, home: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const folded: NodeJS.ProcessEnv = { ...env, TRACER_HOME: home };
  for (const name of SPOOLED_VARIABLES) {
    const value = entry.variables[name];
    if (value === undefined) delete folded[name];
    else folded[name] = value;
  }
  return folded;
}

/**
 * Writes an entry as the hooks do: whole under a dot name, then renamed, named `<unix seconds>-<pid><suffix>`.
 * For git's hooks run synchronously whose commit cannot be recorded yet (the spool could not be folded first):
 * the fold that can records it, in order.
 */
export function writeSpoolEntry(
  dir: string,
  entry: { agent: string; event: string; cwd: string; env: NodeJS.ProcessEnv; payload: string },
  suffix: string,
): string {
  const header = [MAGIC, entry.agent, entry.event, entry.cwd];
  for (const name of SPOOLED_VARIABLES) {
    const value = entry.env[name];
    if (value !== undefined) header.push(`${name}=${value}`);
  }
  const name = `${Math.floor(Date.now() / 1000)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `.${name}`);
  const path = join(dir, `${name}${suffix}`);
  writeFileSync(temporary, `${header.join('\n')}\n\n${entry.payload}`, { mode: 0o600 });
  renameSync(temporary, path);
  return path;
}
