// Factory Droid's session (`~/.factory/sessions/<folder>/<session>.jsonl`):
// `{type: "session_start"}`, `{type: "message", message: {role, content}}` with
// Claude's content blocks, `{type: "todo_state"}`. Its file tools: Create
// (`file_path`, `content`), Edit (`old_str`/`new_str`), MultiEdit, ApplyPatch (a
// patch in `input`). The model and the session's token totals are in
// `<session>.settings.json` beside it, which is not part of the snapshot: the
// transcript itself holds no usage.
import { isObject, isPatch, patchEdit, str, type ItemDraft, type ToolEdit, type TranscriptFormat } from '../../../plugin/transcript.js';
import { claudeCodeTranscript, toolEdit as claudeEdit } from './claude-code.js';

function items(record: unknown): ItemDraft[] {
  if (!isObject(record) || record.type !== 'message' || !isObject(record.message) || typeof record.message.role !== 'string') return [];
  const drafts = claudeCodeTranscript.items({ ...record, type: record.message.role === 'assistant' ? 'assistant' : 'user' }, { own: {} });
  return drafts.map((draft) => (draft.kind === 'tool_call' ? { ...draft, ...droidEdit(draft.name, draft.input) } : draft));
}

function droidEdit(name: string, input: unknown): Partial<ToolEdit> {
  if (!isObject(input)) return isPatch(input) ? patchEdit(input) : {};
  if (name === 'ApplyPatch') {
    const patch = [input.input, input.patch].find(isPatch);
    return patch ? patchEdit(patch) : {};
  }
  const edits = Array.isArray(input.edits)
    ? input.edits.map((edit) =>
        isObject(edit) ? { old_string: edit.old_string ?? edit.old_str, new_string: edit.new_string ?? edit.new_str } : edit,
      )
    : undefined;
  return claudeEdit(name === 'Create' ? 'Write' : name, {
    ...input,
    file_path: str(input.file_path) ?? str(input.path),
    old_string: input.old_string ?? input.old_str,
    new_string: input.new_string ?? input.new_str,
    edits,
  });
}

export const droidTranscript: TranscriptFormat = {
  agent: 'droid',
  items,
  mayStartTurn: (text) => /"role":\s*"user"/.test(text),
  usage: { unknown: "Factory Droid's transcripts hold no token counts (its session totals are kept beside them, outside the snapshot)." },
  recognizes: (record) => isObject(record) && (record.type === 'session_start' || (record.type === 'message' && isObject(record.message))),
};
