// Text and Markdown for `tracer show`, `tracer stats` and the post-commit bar.
// The bar is 20 cells: agent (█), both (▓), person (░), unknown (·).
import type { LineCounts } from './commit-lines.js';
import type { ShowReport } from './show.js';
import { count, money, refusedPhrase } from '../cost/money.js';
import type { Breakdown, StatsReport } from './stats.js';

const BAR_CELLS = 20;

export function bar(lines: LineCounts): string {
  const total = lines.ai + lines.mixed + lines.human + lines.unknown;
  if (total === 0) return '·'.repeat(BAR_CELLS);
  // Largest remainders, so that the cells always add up to the bar's width.
  const parts = (['ai', 'mixed', 'human', 'unknown'] as const).map((type) => ({ type, exact: (lines[type] / total) * BAR_CELLS }));
  const cells = parts.map((part) => Math.floor(part.exact));
  let left = BAR_CELLS - cells.reduce((sum, cell) => sum + cell, 0);
  for (const index of parts.map((_, index) => index).sort((a, b) => (parts[b]!.exact % 1) - (parts[a]!.exact % 1))) {
    if (left === 0) break;
    cells[index]! += 1;
    left -= 1;
  }
  return ['█', '▓', '░', '·'].map((glyph, index) => glyph.repeat(cells[index]!)).join('');
}

export function percent(part: number, total: number): string {
  return total === 0 ? '-' : `${Math.round((part / total) * 100)}%`;
}

export const totalOf = (lines: LineCounts) => lines.ai + lines.human + lines.mixed + lines.unknown;

/** The one line the post-commit hook prints when `commit_summary` is on. */
export function commitBar(commit: string, lines: LineCounts): string {
  const total = totalOf(lines);
  if (total === 0) return `tracer: ${commit.slice(0, 8)} adds no lines`;
  const parts = [`AI ${percent(lines.ai, total)}`, `human ${percent(lines.human, total)}`];
  if (lines.mixed > 0) parts.push(`mixed ${percent(lines.mixed, total)}`);
  if (lines.unknown > 0) parts.push(`unknown ${percent(lines.unknown, total)}`);
  return `tracer: ${commit.slice(0, 8)} ${bar(lines)} ${parts.join(' · ')} of ${total} line${total === 1 ? '' : 's'}`;
}

function countsLine(lines: LineCounts): string {
  const total = totalOf(lines);
  const parts = [
    `AI ${lines.ai} (${percent(lines.ai, total)})`,
    `human ${lines.human}`,
    `mixed ${lines.mixed}`,
    `unknown ${lines.unknown}`,
  ];
  return `${total} line${total === 1 ? '' : 's'} added: ${parts.join(' · ')}`;
}

export function formatShow(report: ShowReport): string {
  const out: string[] = [];
  out.push(
    `commit ${report.commit}${report.ledger_sha === null ? ' (no ledger: unknown)' : ` (ledger ${report.ledger_sha.slice(0, 12)})`}`,
  );
  out.push(`Author: ${report.author}`);
  out.push(`    ${report.subject}`, '');
  out.push(countsLine(report.lines));
  out.push(bar(report.lines), '');
  if (report.files.length > 0) {
    out.push(
      table(
        ['AI', 'HU', 'MX', '??', 'File'],
        report.files.map(({ path, lines }) => [lines.ai, lines.human, lines.mixed, lines.unknown, path]),
      ),
    );
    out.push('');
  }
  for (const conversation of report.conversations) {
    const who = [conversation.agent ?? 'agent', conversation.model_id].filter((part) => part !== null).join(' ');
    out.push(
      `${who}: ${conversation.lines} line${conversation.lines === 1 ? '' : 's'}${conversation.url === null ? '' : `  ${conversation.url}`}`,
    );
    if (conversation.summary !== null) out.push(`    ${conversation.summary.split('\n')[0]}`);
    if (conversation.usage) out.push(`    ${usagePhrase(conversation.usage)}`);
  }
  if (report.cost && report.conversations.some((conversation) => conversation.usage)) {
    const cost =
      report.cost.cost_usd === null
        ? 'cost unknown'
        : `${money(report.cost.cost_usd)}${report.cost.cost_known ? '' : ' + cost unknown for part'}`;
    out.push(`Cost of the conversations: ${cost} (prices: ${report.cost.prices})`);
    const refused = refusedPhrase(report.cost.refused);
    if (refused) out.push(`  ${refused}`);
  }
  if (report.fate) {
    const { alive, deleted, to } = report.fate;
    out.push(
      `Since: ${alive} of its AI lines still at ${to}; deleted by a person ${deleted.person}, by another agent ${deleted.other_agent}, by the same conversation ${deleted.same_conversation}, by someone unknown ${deleted.unknown}`,
    );
  }
  if (report.recovered !== null) {
    // Said apart from the counts: these lines were matched by their text, not followed through the branch's diffs.
    const where = report.recovered.files.map(
      ({ path, ranges }) => `${path} ${ranges.map(([start, end]) => (start === end ? `${start}` : `${start}-${end}`)).join(', ')}`,
    );
    const count = report.recovered.lines;
    out.push(
      `Recovered: ${count} agent line${count === 1 ? '' : 's'} re-attached by content hash (the branch's commits were gone): ${where.join('; ')}`,
    );
  }
  if (report.link?.rewritten_from) out.push(`Replaces ${report.link.rewritten_from} (amended or rebased)`);
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

export function formatStats(report: StatsReport, by: Breakdown): string {
  const total = totalOf(report.lines);
  const out = [
    `${report.range}: ${report.commits} commit${report.commits === 1 ? '' : 's'}, ${report.commits_with_ledger} with a ledger`,
    countsLine(report.lines),
    bar(report.lines),
    '',
  ];
  out.push(breakdownTable(report, by, total, false));
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

export function formatStatsMarkdown(report: StatsReport, by: Breakdown): string {
  const total = totalOf(report.lines);
  const { lines } = report;
  const out = [
    `### AI attribution for \`${report.range}\``,
    '',
    `${report.commits} commit${report.commits === 1 ? '' : 's'} (${report.commits_with_ledger} with a tracer ledger), ${total} line${total === 1 ? '' : 's'} added, **${percent(lines.ai, total)} by AI agents**.`,
    '',
    '| Written by | Lines | Share |',
    '|---|---:|---:|',
    `| AI agent | ${lines.ai} | ${percent(lines.ai, total)} |`,
    `| Person | ${lines.human} | ${percent(lines.human, total)} |`,
    `| Both (mixed) | ${lines.mixed} | ${percent(lines.mixed, total)} |`,
    `| Unknown (no ledger) | ${lines.unknown} | ${percent(lines.unknown, total)} |`,
    '',
    breakdownTable(report, by, total, true),
  ];
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

function breakdownTable(report: StatsReport, by: Breakdown, total: number, markdown: boolean): string {
  const render = markdown ? markdownTable : table;
  if (by === 'agent' || by === 'model') {
    const counts = by === 'agent' ? report.by_agent : report.by_model;
    const rows = Object.entries(counts).map(([name, lines]) => [name, lines, percent(lines, total)]);
    return rows.length === 0 ? '' : render([by === 'agent' ? 'Agent' : 'Model', 'AI lines', 'Share'], rows);
  }
  const counts = (by === 'author' ? report.by_author : report.by_file) ?? {};
  const rows = Object.entries(counts)
    .sort(([a, x], [b, y]) => totalOf(y) - totalOf(x) || (a < b ? -1 : 1))
    .map(([name, lines]) => [name, lines.ai, lines.human, lines.mixed, lines.unknown, percent(lines.ai, totalOf(lines))]);
  return rows.length === 0 ? '' : render([by === 'author' ? 'Author' : 'File', 'AI', 'Human', 'Mixed', 'Unknown', 'AI share'], rows);
}

/** Plain columns; numbers right-aligned. */
function table(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => String(row[column]).length)));
  const cell = (value: string | number, column: number) =>
    typeof value === 'number' ? String(value).padStart(widths[column]!) : String(value).padEnd(widths[column]!);
  const head = headers.map((header, column) =>
    rows.some((row) => typeof row[column] === 'number') ? header.padStart(widths[column]!) : header.padEnd(widths[column]!),
  );
  return [head.join('  ').trimEnd(), ...rows.map((row) => row.map(cell).join('  ').trimEnd())].join('\n');
}

function markdownTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const escape = (value: string | number) => String(value).replaceAll('|', '\\|');
  const align = headers.map((_, column) => (column === 0 ? '---' : '---:'));
  return [`| ${headers.join(' | ')} |`, `|${align.join('|')}|`, ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`)].join('\n');
}

/** A conversation's tokens and cost in one line, or why they are unknown. */
function usagePhrase(usage: NonNullable<ShowReport['conversations'][number]['usage']>): string {
  if (usage.usage === 'missing') return 'tokens unknown: its transcript is not here';
  if (usage.usage === 'unknown') return `tokens unknown: ${usage.reason ?? 'its agent writes no token counts'}`;
  const { tokens } = usage;
  const cost = usage.cost_usd === null ? 'cost unknown' : `${money(usage.cost_usd)}${usage.cost_known ? '' : ' + cost unknown for part'}`;
  const refused = refusedPhrase(usage.refused);
  return `${usage.requests} requests: ${count(tokens.input)} input, ${count(tokens.output)} output, ${count(tokens.cache_write)} cache write, ${count(tokens.cache_read)} cache read tokens; ${cost}${refused ? `; ${refused}` : ''}`;
}
