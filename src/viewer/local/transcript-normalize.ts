// One transcript line, in Claude Code's, Codex's or Cursor's own JSONL (the
// other agents' shapes: transcript-agents.ts, transcript-windsurf.ts), to the
// entries the session page reads. Each format is recognised by its shape, not
// by the session's agent, so a transcript from a newer agent version that adds
// line types still shows what it can. Everything stays text: the page escapes
// it, this only picks it out and cuts the very long.
import type { DiffLine, TranscriptEntry } from '../data-source.js';
import { isObject, str } from './refreshing-file.js';
import { copilotLine, geminiLine, hasParts, isCopilotLine, isDroidLine, isGeminiLine, partsLine } from './transcript-agents.js';
import { isWindsurfLine, windsurfLine } from './transcript-windsurf.js';

const TEXT_MAX = 100_000;
const INPUT_MAX = 20_000;

type Entry = TranscriptEntry;

export function normalizeLine(value: unknown, line: number): Entry[] {
  if (!isObject(value)) return [];
  if (value.type === 'response_item' || value.type === 'session_meta' || value.type === 'event_msg' || value.type === 'turn_context')
    return codexLine(value, line);
  if (isCopilotLine(value)) return copilotLine(value, line, toolCall);
  if (isWindsurfLine(value)) return windsurfLine(value, line, toolCall);
  if (hasParts(value)) return partsLine(value, line, toolCall);
  // Factory Droid wraps Claude's message in `{type: "message"}`.
  if (isDroidLine(value)) return claudeLine({ ...value, type: (value.message as Record<string, unknown>).role }, line);
  if ((value.type === 'user' || value.type === 'assistant') && isObject(value.message)) return claudeLine(value, line);
  if (isGeminiLine(value)) return geminiLine(value, line, toolCall);
  if (value.type === 'summary' && typeof value.summary === 'string') return [{ kind: 'meta', line, text: `Summary: ${value.summary}` }];
  if (typeof value.role === 'string') return genericMessage(value, line);
  return [];
}

function claudeLine(value: Record<string, unknown>, line: number): Entry[] {
  const message = value.message as Record<string, unknown>;
  const ts = str(value.timestamp);
  const role = value.type === 'assistant' ? 'assistant' : 'user';
  const model = str(message.model);
  const content = message.content;
  if (typeof content === 'string') return [withTs({ kind: 'message', line, role, ...clip(content), ...(model ? { model } : {}) }, ts)];
  if (!Array.isArray(content)) return [];
  const entries: Entry[] = [];
  for (const block of content.filter(isObject)) {
    if (block.type === 'text' && typeof block.text === 'string') {
      entries.push(withTs({ kind: 'message', line, role, ...clip(block.text), ...(model ? { model } : {}) }, ts));
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      entries.push(withTs({ kind: 'thinking', line, ...clip(block.thinking) }, ts));
    } else if (block.type === 'tool_use') {
      entries.push(withTs(toolCall(line, str(block.id), str(block.name) ?? 'tool', block.input), ts));
    } else if (block.type === 'tool_result') {
      const text = resultText(block.content);
      entries.push(withTs({ kind: 'tool_result', line, id: str(block.tool_use_id), ...clip(text), error: block.is_error === true }, ts));
    } else if (block.type === 'image') {
      entries.push(withTs({ kind: 'message', line, role, text: '[image]' }, ts));
    }
  }
  return entries;
}

function codexLine(value: Record<string, unknown>, line: number): Entry[] {
  const ts = str(value.timestamp);
  const payload = isObject(value.payload) ? value.payload : {};
  if (value.type === 'session_meta') {
    const cwd = str(payload.cwd);
    return [withTs({ kind: 'meta', line, text: `Codex session${cwd ? ` in ${cwd}` : ''}` }, ts)];
  }
  // event_msg repeats what response_item already holds (user and agent messages): shown once.
  if (value.type !== 'response_item') return [];
  switch (payload.type) {
    case 'message': {
      const role = payload.role === 'assistant' ? 'assistant' : payload.role === 'user' ? 'user' : 'system';
      const text = resultText(payload.content);
      return text === '' ? [] : [withTs({ kind: 'message', line, role, ...clip(text) }, ts)];
    }
    case 'reasoning': {
      const text = resultText(payload.summary);
      return text === '' ? [] : [withTs({ kind: 'thinking', line, ...clip(text) }, ts)];
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      const input = payload.arguments ?? payload.input ?? payload.action;
      return [withTs(toolCall(line, str(payload.call_id), str(payload.name) ?? 'shell', parseMaybeJson(input)), ts)];
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const output = parseMaybeJson(payload.output);
      const text = isObject(output) && typeof output.output === 'string' ? output.output : resultText(output);
      return [withTs({ kind: 'tool_result', line, id: str(payload.call_id), ...clip(text) }, ts)];
    }
    default:
      return [];
  }
}

/** Cursor and any `{role, text | content | message}` line. */
function genericMessage(value: Record<string, unknown>, line: number): Entry[] {
  const role = value.role === 'assistant' ? 'assistant' : value.role === 'user' ? 'user' : 'system';
  const source = value.text ?? value.content ?? (isObject(value.message) ? value.message.content : undefined);
  const text = resultText(source);
  return text === '' ? [] : [withTs({ kind: 'message', line, role, ...clip(text) }, str(value.timestamp))];
}

function toolCall(line: number, id: string | undefined, name: string, input: unknown): Entry {
  const shown = typeof input === 'string' ? input : JSON.stringify(input ?? null, null, 2);
  const { text, truncated } = clip(shown, INPUT_MAX);
  const edit = editOf(name, input);
  return { kind: 'tool_call', line, ...(id ? { id } : {}), name, input: text, ...(truncated ? { truncated } : {}), ...edit };
}

/** The diff an edit tool made, from its input: Claude's Edit / MultiEdit / Write, Cursor's edits, Codex's apply_patch. */
function editOf(name: string, input: unknown): { file?: string; diff?: DiffLine[] } {
  const patch =
    typeof input === 'string' ? input : isObject(input) ? (str(input.input) ?? str(input.patch) ?? patchCommand(input)) : undefined;
  if (patch !== undefined && patch.includes('*** Begin Patch')) return { diff: patchLines(patch) };
  if (!isObject(input)) return {};
  const file = str(input.file_path) ?? str(input.path);
  if (file === undefined) return {};
  if (typeof input.old_string === 'string' && typeof input.new_string === 'string')
    return { file, diff: replaceLines(input.old_string, input.new_string) };
  if (Array.isArray(input.edits)) return { file, diff: input.edits.filter(isObject).flatMap((edit, index) => editHunk(edit, index)) };
  if (/write/i.test(name) && typeof input.content === 'string') return { file, diff: addedLines(input.content) };
  return {};
}

function patchCommand(input: Record<string, unknown>): string | undefined {
  const command = input.command;
  if (typeof command === 'string') return command;
  return Array.isArray(command)
    ? command.find((part): part is string => typeof part === 'string' && part.includes('*** Begin Patch'))
    : undefined;
}

function editHunk(edit: Record<string, unknown>, index: number): DiffLine[] {
  const before = str(edit.old_string) ?? '';
  const after = str(edit.new_string) ?? '';
  return [{ op: '@', text: `edit ${index + 1}` }, ...replaceLines(before, after)];
}

/** Old lines then new lines, with the lines both share at the start and end kept as context. */
function replaceLines(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return capLines([
    ...a.slice(0, head).map((text) => ({ op: ' ' as const, text })),
    ...a.slice(head, a.length - tail).map((text) => ({ op: '-' as const, text })),
    ...b.slice(head, b.length - tail).map((text) => ({ op: '+' as const, text })),
    ...a.slice(a.length - tail).map((text) => ({ op: ' ' as const, text })),
  ]);
}

function addedLines(content: string): DiffLine[] {
  return capLines(
    content
      .replace(/\n$/, '')
      .split('\n')
      .map((text) => ({ op: '+' as const, text })),
  );
}

function patchLines(patch: string): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const text of patch.split('\n')) {
    if (text === '*** Begin Patch' || text === '*** End Patch' || text === '') continue;
    if (text.startsWith('*** ') || text.startsWith('@@')) lines.push({ op: '@', text: text.replace(/^\*\*\* /, '') });
    else if (text.startsWith('+') || text.startsWith('-')) lines.push({ op: text[0] as '+' | '-', text: text.slice(1) });
    else lines.push({ op: ' ', text: text.startsWith(' ') ? text.slice(1) : text });
  }
  return capLines(lines);
}

const DIFF_LINES_MAX = 2_000;
function capLines(lines: DiffLine[]): DiffLine[] {
  if (lines.length <= DIFF_LINES_MAX) return lines;
  return [...lines.slice(0, DIFF_LINES_MAX), { op: '@', text: `… ${lines.length - DIFF_LINES_MAX} more lines` }];
}

/** Text of a tool result or a content array: strings and `{type: text|input_text|output_text, text}` blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((block) =>
        typeof block === 'string' ? block : isObject(block) ? (str(block.text) ?? (block.type === 'image' ? '[image]' : '')) : '',
      )
      .filter((text) => text !== '')
      .join('\n\n');
  if (content === undefined || content === null) return '';
  return JSON.stringify(content, null, 2);
}

function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function clip(text: string, max = TEXT_MAX): { text: string; truncated?: boolean } {
  return text.length <= max ? { text } : { text: text.slice(0, max), truncated: true };
}

function withTs<T extends Entry>(entry: T, ts: string | undefined): T {
  return ts === undefined ? entry : { ...entry, ts };
}
