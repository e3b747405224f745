// `tracer mcp`: a Model Context Protocol server over stdio (the official SDK's
// low-level Server), so that an agent can ask the team's history before it
// edits. Tools: search, why, blame, show_commit, read_conversation, stats.
// Each has a JSON schema; its arguments are checked here, and a bad one is a
// tool error (isError with a sentence), never a crash: the server keeps
// serving. Every result is capped (items, text, bytes) whatever the store
// holds. It never writes the store: blame and show answer from the ledgers as
// they stand (no reconcile on read in this process); only the search index, a
// cache, is brought level with the store.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isTracerError } from '../core/errors.js';
import { isoMillis } from '../core/iso-date.js';
import { findGit } from '../store/git.js';
import type { FormatContext } from '../transcript/agents.js';
import type { TranscriptCursor, TranscriptFormat, TranscriptSource } from '../core/transcript.js';
import { VERSION } from '../core/version.js';

/** A tool's answer, as JSON text, at most this long: an agent's context is precious. */
export const RESULT_MAX_CHARS = 60_000;
/** read_conversation: items and bytes of transcript read per call, at most. */
export const WINDOW_MAX_ITEMS = 60;
export const WINDOW_MAX_BYTES = 512 * 1024;
const ITEM_TEXT_MAX = 4_000;

export interface McpProject {
  id: string;
  dir: string;
  git: { cwd: string; env: NodeJS.ProcessEnv };
  formats: FormatContext;
}

class BadArguments extends Error {}

type Args = Record<string, unknown>;
interface Tool {
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
  run(args: Args, project: McpProject): Promise<unknown>;
}

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const int = (description: string, minimum: number, maximum: number) => ({ type: 'integer', description, minimum, maximum });

export const TOOLS: Record<string, Tool> = {
  search: {
    description:
      "Full-text search (BM25) over this project's captured agent conversations: the person's prompts, the assistant's messages, files its tools named, session summaries and commit subjects. FTS5 syntax: words, \"phrases\", prefix*, AND/OR/NOT, parentheses. Returns the best conversations first, each with agent, model, time and a snippet with the matches marked «like this».",
    inputSchema: {
      type: 'object',
      properties: {
        query: str('What to search for', { minLength: 1, maxLength: 1000 }),
        agent: str('Only conversations of this agent id (claude-code, codex, gemini, …)'),
        since: str('Only conversations active on or after this ISO-8601 date'),
        until: str('Only conversations active on or before this ISO-8601 date'),
        limit: int('How many hits (default 10)', 1, 50),
      },
      required: ['query'],
      additionalProperties: false,
    },
    async run(args, project) {
      const query = requireString(args, 'query');
      const { searchProject } = await import('../search/search.js');
      const since = optionalDate(args, 'since');
      const until = optionalDate(args, 'until');
      const agent = optionalString(args, 'agent');
      const result = await searchProject({
        projectDir: project.dir,
        projectId: project.id,
        formats: project.formats,
        git: project.git,
        query,
        filters: {
          limit: optionalInt(args, 'limit', 1, 50) ?? 10,
          ...(agent === undefined ? {} : { agent }),
          ...(since === undefined ? {} : { since }),
          ...(until === undefined ? {} : { until }),
        },
      });
      return { hits: result.hits };
    },
  },
  why: {
    description:
      "Why a line of a file is there: who wrote it (commit, agent, model, author) and, for an agent's line, the person's prompt before the tool call that wrote it, the assistant's words around that call, and the session summary.",
    inputSchema: {
      type: 'object',
      properties: {
        file: str("Path of the file, relative to the repository root (or the server's folder)", { minLength: 1 }),
        line: int('The line (1-based)', 1, 10_000_000),
        end_line: int('Last line of a range (at most 50 lines from line)', 1, 10_000_000),
      },
      required: ['file', 'line'],
      additionalProperties: false,
    },
    async run(args, project) {
      const path = requireString(args, 'file');
      const start = requireInt(args, 'line', 1, 10_000_000);
      const end = optionalInt(args, 'end_line', start, start + 49) ?? start;
      const { whyLines } = await import('../search/why.js');
      return whyLines({
        projectDir: project.dir,
        projectId: project.id,
        git: gitReading(path, project.git),
        path,
        lines: { start, end },
        formats: project.formats,
      });
    },
  },
  blame: {
    description:
      'Who wrote each line of a file (tracer blame): per line the commit, ai/human/mixed/unknown, agent, model and conversation. At most 200 lines per call.',
    inputSchema: {
      type: 'object',
      properties: {
        file: str("Path of the file, relative to the repository root (or the server's folder)", { minLength: 1 }),
        start_line: int('First line (default 1)', 1, 10_000_000),
        end_line: int('Last line (default start_line + 199)', 1, 10_000_000),
      },
      required: ['file'],
      additionalProperties: false,
    },
    async run(args, project) {
      const path = requireString(args, 'file');
      const start = optionalInt(args, 'start_line', 1, 10_000_000) ?? 1;
      const end = optionalInt(args, 'end_line', start, start + 199) ?? start + 199;
      const git = gitReading(path, project.git);
      const { blameFile, linesInFile } = await import('../attribution/blame.js');
      const { report } = await blameFile({ projectDir: project.dir, git, path, lines: { start, end } }).catch(async (error: unknown) => {
        // A file shorter than the default window: the file from start_line on (start_line itself must be in it).
        const count = linesInFile(error);
        if (count !== undefined && args.end_line === undefined && start <= count)
          return blameFile({ projectDir: project.dir, git, path, lines: { start, end: count } });
        throw error;
      });
      return report;
    },
  },
  show_commit: {
    description:
      "A commit's attribution (tracer show): lines by agents and people, per file, the sessions that wrote them and their summaries.",
    inputSchema: {
      type: 'object',
      properties: { commit: str('A revision git understands (default HEAD)', { minLength: 1, maxLength: 200 }) },
      additionalProperties: false,
    },
    async run(args, project) {
      const rev = optionalString(args, 'commit') ?? 'HEAD';
      if (rev.startsWith('-')) throw new BadArguments('"commit" must be a revision, not an option.');
      const { showCommit } = await import('../attribution/show.js');
      return showCommit({ projectDir: project.dir, git: project.git, rev });
    },
  },
  read_conversation: {
    description:
      "A window of a conversation's transcript by turn (turn 1 is the person's first prompt): the prompts, the assistant's messages, tool calls and results, each clipped. Says how many turns there are; ask for the next turns to read on.",
    inputSchema: {
      type: 'object',
      properties: {
        conversation_id: str('The conversation (as search and why name it)', { minLength: 1, maxLength: 400 }),
        turn: int("The first turn wanted (default 1: the person's first prompt)", 1, 10_000_000),
        turns: int('How many turns (default 1, at most 10)', 1, 10),
      },
      required: ['conversation_id'],
      additionalProperties: false,
    },
    async run(args, project) {
      const id = requireString(args, 'conversation_id');
      const turn = optionalInt(args, 'turn', 1, 10_000_000) ?? 1;
      const turns = optionalInt(args, 'turns', 1, 10) ?? 1;
      return readConversation(project, id, turn, turns);
    },
  },
  stats: {
    description:
      'Lines added by agents and people over a range of commits (tracer stats): by contributor type, agent and model, and the AI share.',
    inputSchema: {
      type: 'object',
      properties: {
        range: str('A git range (default: this branch since it left the default branch)', { minLength: 1, maxLength: 400 }),
        by: { type: 'string', enum: ['agent', 'model', 'author', 'file'], description: 'Breakdown table (default agent)' },
      },
      additionalProperties: false,
    },
    async run(args, project) {
      const range = optionalString(args, 'range');
      if (range?.startsWith('-')) throw new BadArguments('"range" must be a git range, not an option.');
      const by = optionalString(args, 'by') ?? 'agent';
      if (!['agent', 'model', 'author', 'file'].includes(by)) throw new BadArguments('"by" must be agent, model, author or file.');
      const { rangeTallies, statsOf } = await import('../attribution/stats.js');
      const tallies = await rangeTallies({
        projectDir: project.dir,
        git: project.git,
        ...(range === undefined ? {} : { range }),
        by: by as 'agent',
      });
      return statsOf(tallies, by as 'agent');
    },
  },
};

async function readConversation(project: McpProject, id: string, turn: number, turns: number): Promise<unknown> {
  const [{ TranscriptStore }, { fileSource }, { transcriptFormat, recognizeFormat }, { readTurns }, { entryOf }] = await Promise.all([
    import('../viewer/local/transcripts.js'),
    import('../transcript/source.js'),
    import('../transcript/agents.js'),
    import('../transcript/turns.js'),
    import('../viewer/transcript-page.js'),
  ]);
  const store = new TranscriptStore(project.dir, project.formats);
  const found = await store.locate(id);
  const source = found && (await fileSource(found.path));
  if (!source)
    throw new BadArguments(`No transcript of conversation "${id}" is in this project's store; search names the conversations it has.`);
  const agent = await agentOf(project.dir, id);
  const format =
    (agent === undefined ? undefined : await transcriptFormat(agent, project.formats)) ?? (await recognizeFormat(source, project.formats));
  if (!format) throw new BadArguments(`No enabled agent plugin reads the transcript of "${id}".`);
  const sha = /[0-9a-f]{64}$/.exec(found.path)?.[0];
  const window = await readTurns(source, format, {
    turn,
    turns,
    maxItems: WINDOW_MAX_ITEMS,
    maxBytes: WINDOW_MAX_BYTES,
    ...(sha ? { key: sha } : {}),
  });
  return {
    conversation_id: id,
    agent: format.agent,
    turn,
    last_turn: window.lastTurn,
    size: window.size,
    items: window.items.map((item) => clipEntry(entryOf(item))),
    complete: await reachedEnd(source, format, window.next, turn + turns),
    skipped: window.skipped,
    ...(window.next !== null && window.items.length >= WINDOW_MAX_ITEMS
      ? { note: `Cut at ${WINDOW_MAX_ITEMS} items; ask for fewer turns, or the next turn.` }
      : {}),
  };
}

/** Whether a window holds every item of the turns asked for: nothing follows, or what follows opens a later turn. */
async function reachedEnd(
  source: TranscriptSource,
  format: TranscriptFormat,
  next: TranscriptCursor | null,
  untilTurn: number,
): Promise<boolean> {
  if (next === null) return true;
  const { readWindow } = await import('../transcript/read.js');
  const after = await readWindow(source, format, { from: next, maxItems: 1, maxBytes: WINDOW_MAX_BYTES });
  return after.items.length === 0 ? after.next === null : after.items[0]!.turn >= untilTurn;
}

function clipEntry(entry: Record<string, unknown> | object): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (typeof value === 'string' && value.length > ITEM_TEXT_MAX) {
      out[key] = `${value.slice(0, ITEM_TEXT_MAX)}…`;
      out.truncated = true;
    } else if (key === 'diff' && Array.isArray(value)) out[key] = value.slice(0, 200);
    else out[key] = value;
  }
  return out;
}

/** The agent of a conversation, from its trace rows (the last one read wins); undefined when none names it. */
async function agentOf(projectDir: string, id: string): Promise<string | undefined> {
  const { readRecords } = await import('../store/jsonl.js');
  const { join } = await import('node:path');
  const needle = JSON.stringify(id);
  let agent: string | undefined;
  for (const file of ['traces.jsonl', 'session-summaries.jsonl'])
    for await (const row of readRecords<Record<string, unknown>>(join(projectDir, file), { mayMatch: (text) => text.includes(needle) })) {
      if (row && row.conversation_id === id && typeof row.agent === 'string') agent = row.agent;
    }
  return agent;
}

/**
 * Where git should read a tool's `file` from. The answers name files relative to
 * the repository root, so an agent passes them back that way, while its server
 * may run in a subfolder, where git would read the path from that folder: a path
 * that names a file from the root is read from the root; any other from the
 * server's folder, as git reads it (and git's refusal names the path as given).
 */
function gitReading(file: string, git: McpProject['git']): McpProject['git'] {
  if (isAbsolute(file)) return git;
  const top = findGit(git.cwd, git.env)?.worktree;
  return top !== undefined && existsSync(join(top, file)) ? { ...git, cwd: top } : git;
}

function requireString(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value.trim() === '') throw new BadArguments(`"${name}" is required: a non-empty string.`);
  return value;
}

function optionalString(args: Args, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw new BadArguments(`"${name}" must be a non-empty string.`);
  return value;
}

function requireInt(args: Args, name: string, min: number, max: number): number {
  const value = optionalInt(args, name, min, max);
  if (value === undefined) throw new BadArguments(`"${name}" is required: an integer from ${min} to ${max}.`);
  return value;
}

function optionalInt(args: Args, name: string, min: number, max: number): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new BadArguments(`"${name}" must be an integer from ${min} to ${max}.`);
  return value;
}

function optionalDate(args: Args, name: string): string | undefined {
  const value = optionalString(args, name);
  if (value === undefined) return undefined;
  const millis = isoMillis(value);
  if (Number.isNaN(millis)) throw new BadArguments(`"${name}" must be an ISO-8601 date (2026-01-31) or date-time with a zone.`);
  return new Date(millis).toISOString();
}

/**
 * A tool's answer as one JSON text of at most RESULT_MAX_CHARS that still
 * parses: an agent reads it as JSON, so past the limit the answer's lists are
 * shortened from the end (the longest first) rather than the text cut, and the
 * answer says so (`truncated`, and in `left_out` how many of which list, where
 * to ask on). An answer with no list to shorten is replaced by that sentence.
 */
export function capped(value: unknown): CallToolResult {
  const text = JSON.stringify(value, null, 1);
  if (text.length <= RESULT_MAX_CHARS) return { content: [{ type: 'text', text }] };
  const shortened = isRecord(value) ? shortenLists(value, text.length) : undefined;
  const answer = shortened ?? {
    truncated: true,
    left_out: { note: `The answer was ${text.length} characters, over ${RESULT_MAX_CHARS}: ask for less.` },
  };
  return { content: [{ type: 'text', text: JSON.stringify(answer, null, 1) }] };
}

type Answer = Record<string, unknown>;

function isRecord(value: unknown): value is Answer {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` with its top-level lists shortened, longest first, until it fits; undefined when emptying them all is not enough. */
function shortenLists(value: Answer, chars: number): Answer | undefined {
  const lists = Object.keys(value)
    .filter((key) => Array.isArray(value[key]) && (value[key] as unknown[]).length > 0)
    .sort((a, b) => JSON.stringify(value[b]).length - JSON.stringify(value[a]).length);
  let current = value;
  for (const key of lists) {
    if (current !== value && fitsLimit(current)) return current;
    const fits = (kept: number) => fitsLimit(withListCut(current, value, key, kept, chars));
    const length = (value[key] as unknown[]).length;
    if (!fits(0)) {
      current = withListCut(current, value, key, 0, chars);
      continue;
    }
    // The most items that fit: fits(low) holds, fits(length) does not (the answer fitting as it stands returned above).
    let low = 0;
    let high = length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (fits(middle)) low = middle;
      else high = middle - 1;
    }
    return withListCut(current, value, key, low, chars);
  }
  return undefined;
}

function fitsLimit(answer: Answer): boolean {
  return JSON.stringify(answer, null, 1).length <= RESULT_MAX_CHARS;
}

/** `current` with the list `key` (as `original` had it) kept to its first `kept` items, and what was left out said. */
function withListCut(current: Answer, original: Answer, key: string, kept: number, chars: number): Answer {
  const list = original[key] as unknown[];
  const firstLeftOut = list[kept];
  const nextLine = isRecord(firstLeftOut) && key === 'lines' && typeof firstLeftOut.line === 'number' ? firstLeftOut.line : undefined;
  const leftOut = { ...(isRecord(current.left_out) ? current.left_out : {}) };
  delete leftOut.note;
  return {
    ...current,
    [key]: list.slice(0, kept),
    // A transcript window that lost items no longer holds every item of its turns.
    ...(typeof current.complete === 'boolean' ? { complete: false } : {}),
    truncated: true,
    left_out: {
      ...leftOut,
      [key]: list.length - kept,
      ...(nextLine === undefined ? {} : { next_line: nextLine }),
      note:
        `The answer was ${chars} characters, over ${RESULT_MAX_CHARS}: the last items of its lists are left out. ` +
        'Ask for less (fewer lines or turns, a smaller limit) to read the rest.',
    },
  };
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

export async function callTool(name: string, args: unknown, project: McpProject): Promise<CallToolResult> {
  const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (!tool) return toolError(`There is no tool "${name}"; the tools are ${Object.keys(TOOLS).join(', ')}.`);
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
    return toolError('The arguments must be an object.');
  const given = (args ?? {}) as Args;
  const unknown = Object.keys(given).filter((key) => !(key in tool.inputSchema.properties));
  if (unknown.length > 0)
    return toolError(`"${unknown[0]}" is not an argument of ${name}; it takes ${Object.keys(tool.inputSchema.properties).join(', ')}.`);
  try {
    return capped(await tool.run(given, project));
  } catch (error) {
    if (error instanceof BadArguments) return toolError(error.message);
    if (isTracerError(error)) return toolError(`${error.message} (${error.code})`);
    return toolError(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Serves until stdin ends; resolves then. */
export async function serveMcp(project: McpProject, stdio: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream }): Promise<void> {
  const { readOnlyProcess } = await import('../attribution/reconcile/on-read.js');
  readOnlyProcess();
  const server = new Server({ name: 'tracer', version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: Object.entries(TOOLS).map(([name, tool]) => ({
      name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: true },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(request.params.name, request.params.arguments, project));
  const transport = new StdioServerTransport(stdio.stdin as never, stdio.stdout as never);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    stdio.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
