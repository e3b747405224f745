// `tracer why <file>:<line>` and the MCP server's `why` tool: for each line,
// the blame answer (src/attribution/blame.ts, which reconciles a squashed or
// rebased commit on read), then the conversation behind it: the tool call that
// wrote the line (the last one whose input or diff holds the line's text and
// that named the file; else the last one that named the file), the person's
// prompt before it, the assistant's words just before and just after it, and
// the session's summary. Each conversation's transcript is read once, streamed,
// through its agent's format.
import { join } from 'node:path';
import { blameFile, LineOutOfRangeError, linesInFile, type AttributedBlameLine } from '../attribution/blame.js';
import { conversationIdsOfUrls } from '../core/conversation-members.js';
import type { TracerError } from '../core/errors.js';
import type { TranscriptFormat, TranscriptItem } from '../core/transcript.js';
import { readRecords } from '../store/jsonl.js';
import { recognizeFormat, transcriptFormat, type FormatContext } from '../transcript/agents.js';
import { readItems } from '../transcript/read.js';
import { fileSource } from '../transcript/source.js';
import { TranscriptStore } from '../viewer/local/transcripts.js';
import { sessionPath } from './links.js';

/** Text of a prompt or message in an answer, at most. */
export const WHY_TEXT_MAX = 2_000;

export interface WhyQuery {
  projectDir: string;
  projectId: string;
  git: { cwd: string; env: NodeJS.ProcessEnv };
  path: string;
  lines?: { start: number; end: number };
  formats?: FormatContext;
}

export interface WhyLine {
  line: number;
  content: string;
  commit: string | null;
  type: AttributedBlameLine['type'];
  agent: string | null;
  model_id: string | null;
  /** The commit's author, as git has it. */
  author: string | null;
  recovered?: true;
  conversation_id: string | null;
  /** How the tool call was found: its input held the line (`content`), it only named the file (`file`), or none was found. */
  found: 'content' | 'file' | 'none' | null;
  tool: string | null;
  prompt: string | null;
  assistant_before: string | null;
  assistant_after: string | null;
  summary: string | null;
  url: string | null;
  /** A sentence for a line with no conversation behind it. */
  note?: string;
}

export interface WhyReport {
  path: string;
  rev: string | null;
  lines: WhyLine[];
}

/** The lines asked for, each with the conversation behind it; a range that is not all in the file is refused (line_out_of_range). */
export async function whyLines(query: WhyQuery): Promise<WhyReport> {
  const { report, details } = await blameFile({
    projectDir: query.projectDir,
    git: query.git,
    path: query.path,
    ...(query.lines ? { lines: query.lines } : {}),
  }).catch((error: unknown) => {
    const count = linesInFile(error);
    throw count === undefined ? error : outOfRange(query.path, count);
  });
  // git answers a range that runs past the end with the lines there are: a range asked for is all there, or refused.
  const last = report.lines.at(-1)?.line;
  if (query.lines && last !== undefined && last < query.lines.end) throw outOfRange(query.path, last);
  const wanted = new Map<string, { agent: string | null; lines: string[] }>();
  const conversationOf = (line: AttributedBlameLine) => conversationIdsOfUrls([line.conversation_url])[0];
  for (const line of report.lines) {
    const id = conversationOf(line);
    if (id === undefined) continue;
    const entry = wanted.get(id) ?? { agent: line.agent, lines: [] };
    entry.lines.push(line.content);
    wanted.set(id, entry);
  }
  const store = new TranscriptStore(query.projectDir, query.formats);
  const answers = new Map<string, Map<string, Answer>>();
  for (const [id, entry] of wanted)
    answers.set(id, await readConversation(store, id, entry.agent, report.path, entry.lines, query.formats));
  const summaries = await latestSummaries(query.projectDir, new Set(wanted.keys()));
  return {
    path: report.path,
    rev: report.rev,
    lines: report.lines.map((line, at) => {
      const id = conversationOf(line) ?? null;
      const answer = id === null ? undefined : answers.get(id)?.get(line.content);
      const base = {
        line: line.line,
        content: line.content,
        commit: line.commit,
        type: line.type,
        agent: line.agent,
        model_id: line.model_id,
        author: line.commit === null ? null : (details[at]?.author ?? null),
        ...(line.recovered ? { recovered: true as const } : {}),
        conversation_id: id,
      };
      if (id === null) return { ...base, ...NO_CONVERSATION, note: noteOf(line) };
      return {
        ...base,
        found: answer?.found ?? 'none',
        tool: answer?.tool ?? null,
        prompt: answer?.prompt ?? null,
        assistant_before: answer?.before ?? null,
        assistant_after: answer?.after ?? null,
        summary: summaries.get(id) ?? null,
        url: sessionPath(query.projectId, id),
        ...(answer ? {} : { note: 'The transcript of this conversation is not in this store (not captured, not pulled, or forgotten).' }),
      };
    }),
  };
}

const NO_CONVERSATION = {
  found: null,
  tool: null,
  prompt: null,
  assistant_before: null,
  assistant_after: null,
  summary: null,
  url: null,
} as const;

function noteOf(line: AttributedBlameLine): string {
  switch (line.type) {
    case 'human':
      return 'A person wrote this line: no agent conversation is behind it.';
    case 'uncommitted':
      return 'This line is not committed yet: commit it, and the ledger will say who wrote it.';
    case 'unknown':
      return 'Its commit has no ledger (made before tracer, or elsewhere): who wrote it is not known.';
    default:
      return 'The ledger names no conversation for this line.';
  }
}

interface Answer {
  found: 'content' | 'file' | 'none';
  tool: string | null;
  prompt: string | null;
  before: string | null;
  after: string | null;
}

/** Per wanted line's content, what the transcript says about the tool call that wrote it; undefined when there is no transcript. */
async function readConversation(
  store: TranscriptStore,
  id: string,
  agent: string | null,
  path: string,
  contents: string[],
  context: FormatContext | undefined,
): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  const located = await store.locate(id);
  const source = located && (await fileSource(located.path));
  if (!source) return answers;
  let format: TranscriptFormat | undefined = agent === null ? undefined : await transcriptFormat(agent, context);
  format ??= await recognizeFormat(source, context);
  if (!format) return answers;
  const needles = new Map<string, string[]>();
  for (const content of new Set(contents)) {
    const text = content.trim();
    if (text !== '') needles.set(content, [text, JSON.stringify(text).slice(1, -1)]);
  }
  let prompt: string | null = null;
  let before: string | null = null;
  let turn = -1;
  /** Answers still waiting for the assistant's next words, per content. */
  let waiting: Answer[] = [];
  let byFile: Answer | undefined;
  for await (const item of readItems(source, format)) {
    if (item.turn !== turn) {
      turn = item.turn;
      before = null;
      waiting = [];
    }
    if (item.kind === 'message' && item.role === 'person') {
      prompt = clip(item.text);
    } else if (item.kind === 'message' && item.role === 'assistant') {
      for (const answer of waiting) answer.after ??= clip(item.text);
      waiting = [];
      before = clip(item.text);
    } else if (item.kind === 'tool_call' && namesFile(item, path)) {
      const haystack = `${item.input}\n${(item.diff ?? []).map((line) => line.text).join('\n')}`;
      const answerOf = (found: Answer['found']): Answer => ({ found, tool: item.name, prompt, before, after: null });
      byFile = answerOf('file');
      waiting.push(byFile);
      for (const [content, forms] of needles) {
        if (!forms.some((form) => haystack.includes(form))) continue;
        const answer = answerOf('content');
        answers.set(content, answer);
        waiting.push(answer);
      }
    }
  }
  for (const content of contents) if (!answers.has(content)) answers.set(content, byFile ?? { ...EMPTY, prompt: null });
  return answers;
}

const EMPTY: Answer = { found: 'none', tool: null, prompt: null, before: null, after: null };

/** A tool call names the repository's `path` as the agent wrote it: as is, or absolute (ending in /path). */
function namesFile(item: Extract<TranscriptItem, { kind: 'tool_call' }>, path: string): boolean {
  return item.files.some((file) => {
    const normal = file.replaceAll('\\', '/');
    return normal === path || normal.endsWith(`/${path}`) || normal === `./${path}`;
  });
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= WHY_TEXT_MAX ? trimmed : `${trimmed.slice(0, WHY_TEXT_MAX)}…`;
}

/** The latest summary of each conversation asked for (session-summaries.jsonl keeps the latest last). */
async function latestSummaries(projectDir: string, ids: Set<string>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (ids.size === 0) return found;
  for await (const row of readRecords<Record<string, unknown>>(join(projectDir, 'session-summaries.jsonl'))) {
    if (typeof row !== 'object' || row === null || typeof row.summary !== 'string') continue;
    const named = typeof row.conversation_id === 'string' ? [row.conversation_id] : conversationIdsOfUrls([row.conversation_url]);
    for (const id of named) if (ids.has(id)) found.set(id, clip(row.summary));
  }
  return found;
}

function outOfRange(path: string, count: number): TracerError {
  return new LineOutOfRangeError(path, count, `ask for lines inside it (${path}:1-${count} at most)`);
}
