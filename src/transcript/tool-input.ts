// What an agent's edit tool did, from its input: the files it writes and the
// diff the session page shows. Each agent's format says which of its tools
// edit and where their members are; these build the answer the same way for all.
import type { DiffLine } from '../core/transcript.js';

export interface ToolEdit {
  files: string[];
  diff?: DiffLine[];
}

/** A diff longer than this is cut, with a line saying how much was left out. */
const DIFF_LINES_MAX = 2_000;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The first of `members` that holds a non-empty string. */
export function firstString(fields: Record<string, unknown>, members: readonly string[]): string | undefined {
  for (const member of members) {
    const value = str(fields[member]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** A string replaced by another in one file (Edit, replace, str_replace). */
export function replaceEdit(file: string, before: string, after: string): ToolEdit {
  return { files: [file], diff: replaceLines(before, after) };
}

/** A file written whole (Write, write_file, create). */
export function writeEdit(file: string, content: string): ToolEdit {
  return { files: [file], diff: addedLines(content) };
}

/** Several replacements in one file (MultiEdit), each its own hunk. */
export function multiEdit(file: string, edits: ReadonlyArray<{ before: string; after: string }>): ToolEdit {
  return {
    files: [file],
    diff: capLines(
      edits.flatMap((edit, index) => [{ op: '@' as const, text: `edit ${index + 1}` }, ...replaceLines(edit.before, edit.after)]),
    ),
  };
}

/** A patch in Codex's format (`*** Begin Patch`): every file it adds, updates, moves or deletes. */
export function patchEdit(patch: string): ToolEdit {
  const files: string[] = [];
  for (const raw of patch.split('\n')) {
    const header =
      /^\*\*\* (?:Add|Update|Delete) File: (.+)$/.exec(raw.replace(/\r$/, '')) ?? /^\*\*\* Move to: (.+)$/.exec(raw.replace(/\r$/, ''));
    const file = header?.[1]?.trim();
    if (file && !files.includes(file)) files.push(file);
  }
  return { files, diff: patchLines(patch) };
}

export function isPatch(text: unknown): text is string {
  return typeof text === 'string' && text.includes('*** Begin Patch');
}

/**
 * Cline's replace_in_file diff: `------- SEARCH` / `=======` / `+++++++ REPLACE`
 * blocks (older releases: `<<<<<<< SEARCH` and `>>>>>>> REPLACE`), each a hunk.
 */
export function searchReplaceEdit(file: string, blocks: string): ToolEdit {
  const edits: Array<{ before: string; after: string }> = [];
  let search: string[] | undefined;
  let replace: string[] | undefined;
  for (const raw of blocks.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (/^(?:-{3,}|<{3,}) ?SEARCH\s*$/.test(line)) {
      search = [];
      replace = undefined;
    } else if (/^={3,}\s*$/.test(line) && search) replace = [];
    else if (/^(?:\+{3,}|>{3,}) ?REPLACE\s*$/.test(line)) {
      if (search && replace) edits.push({ before: search.join('\n'), after: replace.join('\n') });
      search = undefined;
      replace = undefined;
    } else if (replace) replace.push(line);
    else if (search) search.push(line);
  }
  return edits.length === 0 ? { files: [file] } : multiEdit(file, edits);
}

/** The text of a content value: a string, or text blocks (`{text}`, `{type: "input_text", text}`, an image as `[image]`). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((block) =>
        typeof block === 'string' ? block : isObject(block) ? (str(block.text) ?? (block.type === 'image' ? '[image]' : '')) : '',
      )
      .filter((text) => text !== '')
      .join('\n\n');
  if (content === undefined || content === null) return '';
  if (isObject(content) && typeof content.text === 'string') return content.text;
  return JSON.stringify(content, null, 2) ?? '';
}

/** A string that holds a JSON object or array (tool arguments some agents keep serialized), else the value itself. */
export function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Old lines then new lines, with the lines both share at the start and end kept as context. */
export function replaceLines(before: string, after: string): DiffLine[] {
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

export function addedLines(content: string): DiffLine[] {
  return capLines(
    content
      .replace(/\n$/, '')
      .split('\n')
      .map((text) => ({ op: '+' as const, text })),
  );
}

export function patchLines(patch: string): DiffLine[] {
  const lines: DiffLine[] = [];
  for (const raw of patch.split('\n')) {
    const text = raw.replace(/\r$/, '');
    if (text === '*** Begin Patch' || text === '*** End Patch' || text === '') continue;
    if (text.startsWith('*** ') || text.startsWith('@@')) lines.push({ op: '@', text: text.replace(/^\*\*\* /, '') });
    else if (text.startsWith('+') || text.startsWith('-')) lines.push({ op: text[0] as '+' | '-', text: text.slice(1) });
    else lines.push({ op: ' ', text: text.startsWith(' ') ? text.slice(1) : text });
  }
  return capLines(lines);
}

function capLines(lines: DiffLine[]): DiffLine[] {
  if (lines.length <= DIFF_LINES_MAX) return lines;
  return [...lines.slice(0, DIFF_LINES_MAX), { op: '@', text: `… ${lines.length - DIFF_LINES_MAX} more lines` }];
}
