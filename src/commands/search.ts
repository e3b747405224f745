import { Command, Option, UsageError } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';
import { isoMillis } from '../core/iso-date.js';

export class SearchCommand extends TracerCommand {
  static override paths = [['search']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: "Search every captured conversation: the person's prompts, the assistant's words, files, summaries, commit subjects",
    details: `
      Full-text search over this project's conversations: the person's prompts, the assistant's messages, the files its tool calls named, each session's summary and the subjects of the commits it led to. Hits are ranked by BM25, best first; each names the conversation, its time, agent and model, a snippet with the matches marked «like this», and the conversation's page in \`tracer view\` (append the path to the URL it prints).

      The query is FTS5's syntax: words (all must match), "a quoted phrase", prefix* terms, AND, OR, NOT and parentheses. Punctuation inside a word is text (\`retry-logic\`, \`a.b:c\`). A query that cannot be read is refused with \`invalid_query\`.

      The index is a cache in the project's folder (\`cache/search.sqlite\`), brought level with the store before every search: a transcript is read again only when its newest snapshot changed, and forgotten conversations leave it. \`--reindex\` builds it from nothing; a missing or damaged index is built again without asking. Transcripts and summaries are indexed as stored, redacted: a secret's placeholder is searchable, the secret is not.

      With --json it prints \`{"hits": [{"conversation_id", "agent", "model", "ts", "first_ts", "snippet", "url", "score", "commits"}]}\`, best first.
    `,
    examples: [
      ['Where the retry logic was discussed', '$0 search "retry logic"'],
      ['A prefix, one agent, since a date', '$0 search "migrat*" --agent claude-code --since 2026-01-01'],
      ['Either word but not a third', '$0 search "(timeout OR deadline) NOT test"'],
      ['Conversations behind commits of one author, as JSON', '$0 search cache --author alice@example.com --json'],
      ['Build the index again from the store', '$0 search --reindex'],
    ],
  });

  // The words of the query, quoted or not: `tracer search retry logic` is `tracer search "retry logic"` without the phrase.
  words = Option.Rest({ name: 'query' });
  agent = Option.String('--agent', { description: 'Only conversations of this agent (claude-code, codex, gemini, …)' });
  since = Option.String('--since', { description: 'Only conversations active on or after this date (ISO-8601)' });
  until = Option.String('--until', { description: 'Only conversations active on or before this date (ISO-8601; a date means its end)' });
  author = Option.String('--author', { description: 'Only conversations that led to a commit by this author (part of name or email)' });
  limit = Option.String('--limit', { description: 'How many hits at most (1 to 200, default 20)' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });
  reindex = Option.Boolean('--reindex', false, { description: 'Build the index again from the store before searching' });

  async run() {
    const query = this.words.length === 0 ? undefined : this.words.join(' ');
    const limit = this.limit === undefined ? 20 : Number(this.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200)
      throw new UsageError(`--limit takes a number from 1 to 200, not "${this.limit}"`);
    if (query === undefined && !this.reindex) throw new UsageError('Give a query to search for (or --reindex to build the index).');
    const { parseSince } = await import('../cli/since.js');
    const since = parseSince(this.since);
    const until = parseUntil(this.until);
    const project = this.project();
    const { cwd, home, env } = this.context;
    const progress = progressLine(this.context.stderr);
    const common = { projectDir: project.dir, formats: { home, cwd, env }, git: { cwd, env }, ...(progress ? { progress } : {}) };
    if (query === undefined) {
      const { syncIndex } = await import('../search/local-index.js');
      const { db, report } = await syncIndex({ ...common, reset: true });
      db.close();
      progress?.(1, 1, true);
      if (this.json) this.printJson({ hits: [], index: report });
      else this.print(`Indexed ${report.indexed} conversation${report.indexed === 1 ? '' : 's'} (${mb(report.bytes)} of transcripts).`);
      return;
    }
    const { searchProject } = await import('../search/search.js');
    const result = await searchProject({
      ...common,
      projectId: project.id,
      query,
      reset: this.reindex,
      filters: {
        limit,
        ...(this.agent === undefined ? {} : { agent: this.agent }),
        ...(since === undefined ? {} : { since }),
        ...(until === undefined ? {} : { until }),
        ...(this.author === undefined ? {} : { author: this.author }),
      },
    });
    progress?.(1, 1, true);
    if (this.json) {
      this.printJson({ hits: result.hits });
      return;
    }
    if (result.hits.length === 0) {
      this.print('No conversation matches.');
      return;
    }
    for (const hit of result.hits) {
      const who = [hit.agent ?? 'unknown agent', hit.model].filter(Boolean).join(' · ');
      this.print(`${hit.conversation_id}  ${hit.ts ?? 'time unknown'}  ${who}`);
      this.print(`  ${hit.snippet}`);
      this.print(`  ${hit.url}`);
    }
  }
}

/** `--until` as `--since` reads it; a bare date means the end of that day. */
function parseUntil(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const millis = isoMillis(text, { endOfDay: true });
  if (Number.isNaN(millis))
    throw new UsageError(
      `--until takes an ISO-8601 date or date-time with a time zone, e.g. 2024-05-31 or 2024-05-31T12:00:00Z, not "${value}"`,
    );
  return new Date(millis).toISOString();
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Progress of a long (re)index on stderr, only when it is a terminal; one line, rewritten. */
function progressLine(stderr: NodeJS.WritableStream): ((done: number, total: number, end?: boolean) => void) | undefined {
  if (!(stderr as { isTTY?: boolean }).isTTY) return undefined;
  let shown = 0;
  let started = false;
  return (done, total, end) => {
    if (end) {
      if (started) stderr.write('\r\x1b[K');
      return;
    }
    const now = Date.now();
    if (now - shown < 200 || total < 50e6) return;
    shown = now;
    started = true;
    stderr.write(`\rindexing transcripts: ${mb(done)} of ${mb(total)} (${Math.floor((done / total) * 100)}%)`);
  };
}
