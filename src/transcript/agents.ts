// An agent's transcript format by the agent's id, without booting the kernel:
// the adapter is found as `tracer hook` finds it (loadAgent: the built-in and
// user plugin lists, one adapter module), then its reader module is loaded.
// Without a context (the service, which runs no user's plugins) only the
// built-in agents are looked at.
import { pathToFileURL } from 'node:url';
import type { AgentAdapter } from '../core/agent.js';
import { AGENT_ID } from '../core/agent.js';
import type { TranscriptFormat, TranscriptSource } from '../core/transcript.js';
import { listLayer } from '../capture/hook/list-layer.js';
import { loadAgent } from '../capture/hook/run-hook.js';
import { BUILTIN_LIST_FILE, builtinPluginPath } from '../kernel/plugin-list.js';
import { readRawRecords } from './records.js';

export interface FormatContext {
  /** TRACER_HOME: its plugins.json may add agents or switch built-ins off. */
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The built-in agents' ids, as the package's plugins.json lists them (`agents/<id>`). */
export function builtinAgents(): string[] {
  return listLayer(BUILTIN_LIST_FILE, 'builtin')
    .entries.filter((entry) => entry.startsWith('agents/'))
    .map((entry) => entry.slice('agents/'.length));
}

const loaded = new Map<string, Promise<TranscriptFormat | undefined>>();

/**
 * The transcript format of agent `id`; undefined when no enabled plugin has
 * that agent, or its adapter reads no transcripts. Formats are kept once
 * loaded, per id and home.
 */
export function transcriptFormat(id: string, context?: FormatContext): Promise<TranscriptFormat | undefined> {
  if (!AGENT_ID.test(id)) return Promise.resolve(undefined);
  const key = `${context?.home ?? ''}\0${id}`;
  let format = loaded.get(key);
  if (!format) {
    format = load(id, context).catch(() => undefined);
    loaded.set(key, format);
  }
  return format;
}

async function load(id: string, context: FormatContext | undefined): Promise<TranscriptFormat | undefined> {
  const adapter = context ? (await loadAgent(id, context))?.adapter : await builtinAdapter(id);
  if (!adapter?.transcript) return undefined;
  const format = await adapter.transcript();
  return isFormat(format) ? format : undefined;
}

async function builtinAdapter(id: string): Promise<AgentAdapter | undefined> {
  const path = builtinPluginPath(`agents/${id}`);
  if (!path) return undefined;
  const module = (await import(pathToFileURL(path).href)) as { default?: { agents?: AgentAdapter[] } };
  return module.default?.agents?.find((agent) => agent.id === id);
}

/** A plugin's reader is checked for the members the reader calls before it is trusted with a transcript. */
function isFormat(value: unknown): value is TranscriptFormat {
  if (typeof value !== 'object' || value === null) return false;
  const format = value as Partial<TranscriptFormat>;
  const usage = format.usage as unknown;
  return (
    typeof format.items === 'function' &&
    typeof usage === 'object' &&
    usage !== null &&
    ('unknown' in usage
      ? typeof (usage as { unknown: unknown }).unknown === 'string'
      : typeof (usage as { read?: unknown }).read === 'function')
  );
}

/**
 * The format of a transcript whose agent is not recorded (a session with a
 * snapshot but no trace row): the first built-in agent whose `recognizes`
 * takes one of the transcript's first records.
 */
export async function recognizeFormat(source: TranscriptSource, context?: FormatContext): Promise<TranscriptFormat | undefined> {
  const formats = (await Promise.all(builtinAgents().map((id) => transcriptFormat(id, context)))).filter(
    (format): format is TranscriptFormat => format !== undefined && typeof format.recognizes === 'function',
  );
  const documentMember = formats.find((format) => format.documentMember)?.documentMember;
  let seen = 0;
  for await (const record of readRawRecords(source, { offset: 0, record: 0 }, { documentMember, maxRecordBytes: 4 * 1024 * 1024 })) {
    if (record.text === undefined) continue;
    let value: unknown;
    try {
      value = JSON.parse(record.text) as unknown;
    } catch {
      continue;
    }
    const found = formats.find((format) => {
      try {
        return format.recognizes!(value);
      } catch {
        return false;
      }
    });
    if (found) return found;
    seen += 1;
    if (seen >= 8) return undefined;
  }
  return undefined;
}
