// The few members of a trace row the index needs (conversation_id, ts, agent,
// model, files[].path), picked out of the row's text without parsing it: JSON.parse
// of 100k rows of line hashes is most of the project page's first load. Only rows it can read without doubt take this
// path; anything else answers undefined and is parsed as JSON:
//
// - a key is matched with its quotes (`"ts":"`): every quote inside a JSON
//   string is escaped, so the pattern can only be structure; a value is read
//   up to the next quote and refused if it holds a backslash (an escape);
// - the row is `{...}` and its last `ts` comes after every `]`: tracer writes
//   members in sorted order (files before ts), so a line torn inside `files`
//   and later ended by the next append's newline has no top-level ts, or one
//   before an unclosed array, and is parsed (and refused) instead.
// The keys it reads never occur nested in a trace row (src/capture/trace-record.ts).

export interface TraceFields {
  conversationId: string;
  ts: string;
  agent: string | undefined;
  model: string | undefined;
  paths: string[];
}

const KEYS = {
  conversation: '"conversation_id":"',
  ts: '"ts":"',
  agent: '"agent":"',
  model: '"model":"',
  path: '"path":"',
};

export function scanTrace(line: string): TraceFields | undefined {
  if (!line.startsWith('{"') || !line.endsWith('}')) return undefined;
  // From the end: ts and model are among the last members, so these searches stay short.
  const tsAt = line.lastIndexOf(KEYS.ts);
  if (tsAt === -1 || tsAt < line.lastIndexOf(']')) return undefined;
  const conversationAt = line.indexOf(KEYS.conversation);
  if (conversationAt === -1) return undefined;
  const agentAt = line.indexOf(KEYS.agent);
  const modelAt = line.lastIndexOf(KEYS.model);
  const paths: string[] = [];
  for (let at = line.indexOf(KEYS.path); at !== -1; at = line.indexOf(KEYS.path, at + KEYS.path.length)) {
    const value = valueAt(line, at + KEYS.path.length);
    if (value === undefined) return undefined;
    paths.push(value);
  }
  const conversationId = valueAt(line, conversationAt + KEYS.conversation.length);
  const ts = valueAt(line, tsAt + KEYS.ts.length);
  const agent = agentAt === -1 ? null : valueAt(line, agentAt + KEYS.agent.length);
  const model = modelAt === -1 ? null : valueAt(line, modelAt + KEYS.model.length);
  if (conversationId === undefined || ts === undefined || agent === undefined || model === undefined) return undefined;
  return { conversationId, ts, agent: agent ?? undefined, model: model ?? undefined, paths };
}

/** The string value starting at `start`, or undefined when it holds an escape (then the row is parsed instead). */
function valueAt(line: string, start: number): string | undefined {
  const end = line.indexOf('"', start);
  if (end === -1) return undefined;
  const value = line.slice(start, end);
  return value.includes('\\') ? undefined : value;
}
