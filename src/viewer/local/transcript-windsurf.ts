// Windsurf Cascade's transcript (`~/.windsurf/transcripts/<trajectory_id>.jsonl`,
// the file post_cascade_response_with_transcript names), to the entries the
// session page reads. Every line is one step, `{type, status, <type>: {...}}`:
// `user_input` (`user_response`), `planner_response` (`response`), and the
// tool steps (`view_file`, `code_action`, `run_command`, `grep_search`, ...),
// whose member holds their arguments and, for some, their output.
import type { TranscriptEntry } from '../data-source.js';
import { isObject, str } from './refreshing-file.js';

type Entry = TranscriptEntry;
type Row = Record<string, unknown>;
type Tool = (line: number, id: string | undefined, name: string, input: unknown) => Entry;

/** What a tool step returned, by the member its step keeps it in. */
const OUTPUT_MEMBERS = ['output', 'content'] as const;

export function isWindsurfLine(value: Row): boolean {
  return typeof value.type === 'string' && typeof value.status === 'string' && isObject(value[value.type]);
}

export function windsurfLine(value: Row, line: number, tool: Tool): Entry[] {
  const type = value.type as string;
  const step = value[type] as Row;
  if (type === 'user_input') return message(line, 'user', str(step.user_response));
  if (type === 'planner_response') return message(line, 'assistant', str(step.response));
  const output = OUTPUT_MEMBERS.map((member) => str(step[member])).find((text) => text !== undefined);
  const input = Object.fromEntries(Object.entries(step).filter(([member]) => !(OUTPUT_MEMBERS as readonly string[]).includes(member)));
  const entries: Entry[] = [tool(line, undefined, type, input)];
  const failed = value.status === 'error';
  if (output !== undefined || failed) entries.push({ kind: 'tool_result', line, text: output ?? `${type} failed`, error: failed });
  return entries;
}

function message(line: number, role: 'user' | 'assistant', text: string | undefined): Entry[] {
  return text === undefined || text.trim() === '' ? [] : [{ kind: 'message', line, role, text }];
}
