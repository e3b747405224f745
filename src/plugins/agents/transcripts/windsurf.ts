// Windsurf Cascade's transcript (`~/.windsurf/transcripts/<trajectory_id>.jsonl`,
// named by post_cascade_response_with_transcript): one step per line,
// `{type, status, <type>: {...}}`. `user_input` (`user_response`) is the
// person's; `planner_response` (`response`) Cascade's; every other step is a
// tool (`view_file`, `code_action`, `run_command`, `grep_search`, ...) whose
// member holds its arguments and, for some, its output (`output`, `content`).
// `code_action` edits `path` (a file: URL) from `original_content` to
// `new_content`. The steps name no model and hold no token usage.
import { isObject, replaceEdit, str, type ItemDraft, type TranscriptFormat } from '../../../plugin/transcript.js';

const OUTPUT_MEMBERS = ['output', 'content'] as const;

function items(record: unknown): ItemDraft[] {
  if (!isObject(record) || typeof record.type !== 'string' || typeof record.status !== 'string' || !isObject(record[record.type]))
    return [];
  const type = record.type;
  const step = record[type] as Record<string, unknown>;
  const ts = str(record.timestamp);
  if (type === 'user_input') return [{ kind: 'message', role: 'person', text: str(step.user_response) ?? '', ts }];
  if (type === 'planner_response') return [{ kind: 'message', role: 'assistant', text: str(step.response) ?? '', ts }];
  const output = OUTPUT_MEMBERS.map((member) => str(step[member])).find((text) => text !== undefined);
  const input = Object.fromEntries(Object.entries(step).filter(([member]) => !(OUTPUT_MEMBERS as readonly string[]).includes(member)));
  const drafts: ItemDraft[] = [{ kind: 'tool_call', name: type, input, ...edit(type, step), ts }];
  const failed = record.status === 'error';
  if (output !== undefined || failed) drafts.push({ kind: 'tool_result', text: output ?? `${type} failed`, error: failed, ts });
  return drafts;
}

function edit(type: string, step: Record<string, unknown>) {
  if (type !== 'code_action' && type !== 'write_to_file') return {};
  const file = str(step.path) ?? str(step.target_file) ?? str(step.absolute_path);
  if (file === undefined) return {};
  const path = file.startsWith('file://') ? decodeURIComponent(file.slice('file://'.length)) : file;
  const before = typeof step.original_content === 'string' ? step.original_content : '';
  const after = str(step.new_content) ?? str(step.code_content);
  return after === undefined ? { files: [path] } : replaceEdit(path, before, after);
}

export const windsurfTranscript: TranscriptFormat = {
  agent: 'windsurf',
  items,
  mayStartTurn: (text) => /"user_input"/.test(text),
  usage: { unknown: "Windsurf Cascade's transcripts hold no token counts." },
  recognizes: (record) =>
    isObject(record) && typeof record.type === 'string' && typeof record.status === 'string' && isObject(record[record.type]),
};
