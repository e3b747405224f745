import { Command, Option, UsageError } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';
import type { WhyLine } from '../search/why.js';

export class WhyCommand extends TracerCommand {
  static override paths = [['why']];
  static override usage = Command.Usage({
    category: 'Attribution',
    description: 'Why a line is there: who wrote it, and the conversation behind it',
    details: `
      For each line of the file (all of them, one, or a range A-B), the blame answer as \`tracer blame\` gives it (commit, agent, model, the commit's author), then the conversation behind it: the person's prompt before the tool call that wrote the line, the assistant's words just before and just after that call, the session's summary, and the conversation's page in \`tracer view\`. A line a person wrote, or whose commit has no ledger, says so. A commit squashed or rebased by a merge button is answered through reconcile, as blame does.

      Consecutive lines with the same answer are shown once. It runs git and reads the store; it writes nothing but what reconcile records.

      With --json it prints \`{"path", "rev", "lines": [{"line", "content", "commit", "type", "agent", "model_id", "author", "conversation_id", "found", "tool", "prompt", "assistant_before", "assistant_after", "summary", "url"}]}\`; \`found\` says how the tool call was found: \`content\` (its input held the line), \`file\` (it wrote the file) or \`none\`.
    `,
    examples: [
      ['Why line 42 is there', '$0 why src/retry.ts:42'],
      ['Lines 10 to 20, as JSON', '$0 why src/retry.ts:10-20 --json'],
      ['Every line of a file', '$0 why src/retry.ts'],
    ],
  });

  target = Option.String({ name: 'file[:line[-line]]' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable object on stdout' });

  async run() {
    const { path, lines } = parseTarget(this.target);
    const project = this.project();
    const { cwd, home, env } = this.context;
    const { whyLines } = await import('../search/why.js');
    const report = await whyLines({
      projectDir: project.dir,
      projectId: project.id,
      git: { cwd, env },
      path,
      ...(lines ? { lines } : {}),
      formats: { home, cwd, env },
    });
    if (this.json) {
      this.printJson(report);
      return;
    }
    for (const group of groups(report.lines)) this.context.stdout.write(formatGroup(report.path, group));
  }
}

/**
 * `file`, `file:N` or `file:A-B`. After the last colon, digits and dashes are a line range, which must then be one
 * (`file:1-`, `file:-1` are refused); anything else is part of the path.
 */
export function parseTarget(text: string): { path: string; lines?: { start: number; end: number } } {
  const match = /^(.*):(\d+)(?:-(\d+))?$/.exec(text);
  if (!match) {
    if (text.trim() === '') throw new UsageError('Give a file, optionally with :LINE or :A-B.');
    if (/:[\d-]+$/.test(text))
      throw new UsageError(`The lines must be a number or A-B with 1 ≤ A ≤ B (for example src/a.ts:12-20), not "${text}"`);
    return { path: text };
  }
  const start = Number(match[2]);
  const end = match[3] === undefined ? start : Number(match[3]);
  if (start < 1 || end < start) throw new UsageError(`The lines must be A-B with 1 ≤ A ≤ B (for example src/a.ts:12-20), not "${text}"`);
  return { path: match[1]!, lines: { start, end } };
}

const SAME: (keyof WhyLine)[] = ['commit', 'type', 'conversation_id', 'found', 'tool', 'prompt', 'assistant_before', 'assistant_after'];

function groups(lines: WhyLine[]): WhyLine[][] {
  const out: WhyLine[][] = [];
  for (const line of lines) {
    const last = out.at(-1);
    if (last && last.at(-1)!.line === line.line - 1 && SAME.every((key) => last[0]![key] === line[key])) last.push(line);
    else out.push([line]);
  }
  return out;
}

const TAG = { ai: 'AI', human: 'HU', mixed: 'MX', unknown: '??', uncommitted: '--' } as const;

function formatGroup(path: string, group: WhyLine[]): string {
  const first = group[0]!;
  const last = group.at(-1)!;
  const range = first.line === last.line ? `${first.line}` : `${first.line}-${last.line}`;
  const who = [first.agent, first.model_id].filter(Boolean).join(' · ');
  const out = [
    `${path}:${range}  ${first.commit ? first.commit.slice(0, 12) : 'uncommitted'}  ${TAG[first.type]}${who ? `  ${who}` : ''}${first.author ? `  (commit by ${first.author})` : ''}${first.recovered ? '  [recovered by reconcile]' : ''}`,
  ];
  for (const line of group) out.push(`  ${String(line.line).padStart(5)} │ ${line.content}`);
  if (first.note) out.push(`  ${first.note}`);
  const quote = (label: string, text: string | null) => {
    if (text) out.push(`  ${label}`, ...text.split('\n').map((row) => `    ${row}`));
  };
  if (first.conversation_id) {
    out.push(
      `  conversation ${first.conversation_id}${first.tool ? ` (tool ${first.tool}${first.found === 'file' ? ', which wrote the file' : ''})` : ''}`,
    );
    quote('prompt:', first.prompt);
    quote('assistant, before the edit:', first.assistant_before);
    quote('assistant, after the edit:', first.assistant_after);
    quote('summary:', first.summary);
    if (first.url) out.push(`  view: ${first.url}`);
  }
  return `${out.join('\n')}\n\n`;
}
