// Text, Markdown and JSON of the cost figures (`tracer stats --cost`, `tracer
// show`, the CI comment). Every dollar figure is printed with the price table
// it came from; a cost that could not be computed says "cost unknown" and why,
// never $0.
import { count, money, refusedPhrase } from '../cost/money.js';
import { UNPRICED_REASONS } from '../cost/prices.js';
import { tokenCounts, type ConversationOutcome, type CostGroup, type CostSection } from '../cost/cost-section.js';
import type { UsageTokens } from '../core/transcript.js';

export { count, money };

/** "1,234 input · 56 output · 7,890 cache write · 12,345 cache read". */
export function tokensLine(tokens: UsageTokens): string {
  return [
    `${count(tokens.input)} input`,
    `${count(tokens.output)} output`,
    `${count(tokens.cacheWrite)} cache write`,
    `${count(tokens.cacheRead)} cache read`,
  ].join(' · ');
}

/** A group's cost, with what is missing from it. */
export function costPhrase(group: Pick<CostGroup, 'cost_usd' | 'cost_known' | 'usage' | 'conversations'>): string {
  const cost = money(group.cost_usd);
  if (group.cost_known || group.cost_usd === null) return cost;
  return `${cost} + cost unknown for part`;
}

function unknownNote(section: CostSection): string | null {
  const notes: string[] = [];
  const { unknown, missing } = section.usage;
  if (unknown > 0) notes.push(`${unknown} whose agent writes no token counts`);
  if (missing > 0) notes.push(`${missing} whose transcript is not here`);
  const reasons = new Set<string>();
  for (const conversation of section.by_conversation)
    if (conversation.usage === 'known' && !conversation.cost_known) for (const model of unpricedModels(conversation)) reasons.add(model);
  if (reasons.size > 0) notes.push(`requests the price table cannot price (${[...reasons].join('; ')})`);
  const refused = refusedPhrase(section.refused);
  if (refused) notes.push(refused);
  return notes.length === 0 ? null : `cost unknown for ${notes.join(', ')}`;
}

function unpricedModels(conversation: ConversationOutcome): string[] {
  return conversation.unpriced.map(
    ({ model, reasons }) => `${model || 'no model named'}: ${reasons.map((reason) => UNPRICED_REASONS[reason]).join(', ')}`,
  );
}

function linesLine(section: CostSection): string {
  const tip = section.tip === null ? '' : ` · ${section.at_tip === null ? '?' : count(section.at_tip)} still at ${section.tip}`;
  const { person, other_agent } = section.deleted;
  return `AI lines: ${count(section.written)} written · ${count(section.landed)} landed${tip} · rework ${count(section.rework)} (deleted later by a person ${person}, by another agent ${other_agent})`;
}

export function formatCostText(section: CostSection, by: string): string {
  const out = [`Cost of the agents (prices: ${section.prices})`];
  if (section.conversations === 0) {
    out.push('  No agent conversation is behind these commits.');
  } else {
    out.push(
      `  ${section.conversations} conversation${section.conversations === 1 ? '' : 's'} behind the AI lines, ${count(section.requests)} requests`,
    );
    out.push(`  tokens: ${tokensLine(section.tokens)}`);
    const perLine = section.cost_per_landed_line_usd === null ? '' : ` · ${money(section.cost_per_landed_line_usd)} per landed AI line`;
    out.push(`  cost: ${costPhrase(section)}${perLine}`);
    const note = unknownNote(section);
    if (note) out.push(`  ${note}`);
    out.push(`  ${linesLine(section)}`);
  }
  if (section.unlanded.conversations > 0)
    out.push(
      `  reached no commit: ${section.unlanded.conversations} conversation${section.unlanded.conversations === 1 ? '' : 's'}, ${count(section.unlanded.written)} lines written, ${costPhrase(section.unlanded)}`,
    );
  const rows = groupRows(section, by);
  if (rows) out.push('', plainTable(rows.headers, rows.rows));
  return `${out.join('\n')}\n`;
}

export function formatCostMarkdown(section: CostSection, by: string): string {
  const out = ['#### What the agents cost', ''];
  if (section.conversations === 0) out.push('No agent conversation is behind these commits.');
  else {
    out.push(
      '| | |',
      '|---|---:|',
      `| Conversations behind the AI lines | ${section.conversations} |`,
      `| Input tokens (uncached) | ${count(section.tokens.input)} |`,
      `| Output tokens | ${count(section.tokens.output)} |`,
      `| Cache write tokens | ${count(section.tokens.cacheWrite)} |`,
      `| Cache read tokens | ${count(section.tokens.cacheRead)} |`,
      `| Cost | ${costPhrase(section)} |`,
      `| Cost per landed AI line | ${money(section.cost_per_landed_line_usd)} |`,
      `| AI lines written | ${count(section.written)} |`,
      `| AI lines landed | ${count(section.landed)} |`,
      ...(section.tip === null
        ? []
        : [`| AI lines still at \`${section.tip}\` | ${section.at_tip === null ? '?' : count(section.at_tip)} |`]),
      `| Rework: AI lines deleted later by a person | ${count(section.deleted.person)} |`,
      `| Rework: AI lines deleted later by another agent | ${count(section.deleted.other_agent)} |`,
    );
    const note = unknownNote(section);
    if (note) out.push('', `_${note[0]!.toUpperCase()}${note.slice(1)}._`);
  }
  if (section.unlanded.conversations > 0)
    out.push(
      '',
      `${section.unlanded.conversations} conversation${section.unlanded.conversations === 1 ? '' : 's'} of the same time reached no commit: ${count(section.unlanded.written)} lines written, ${costPhrase(section.unlanded)}.`,
    );
  const rows = groupRows(section, by);
  if (rows) out.push('', markdownTable(rows.headers, rows.rows));
  out.push('', `<sub>Prices: ${section.prices}, the providers' list prices per token kind (docs/attribution.md).</sub>`);
  return `${out.join('\n')}\n`;
}

function groupRows(section: CostSection, by: string): { headers: string[]; rows: Array<Array<string | number>> } | undefined {
  if (!section.by || section.by.length === 0) return undefined;
  const title = by === 'agent' ? 'Agent' : by === 'model' ? 'Model' : 'Author';
  return {
    headers: [title, 'Conversations', 'Tokens', 'Cost', 'Written', 'Landed', 'Rework', '$ per landed line'],
    rows: section.by.map((group) => [
      group.key,
      group.conversations,
      count(group.tokens.input + group.tokens.output + group.tokens.cacheWrite + group.tokens.cacheRead),
      costPhrase(group),
      count(group.written),
      count(group.landed),
      count(group.rework),
      money(group.cost_per_landed_line_usd),
    ]),
  };
}

function plainTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => String(row[column]).length)));
  const line = (cells: ReadonlyArray<string | number>) =>
    cells
      .map((cell, column) => (column === 0 ? String(cell).padEnd(widths[column]!) : String(cell).padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

function markdownTable(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const escape = (value: string | number) => String(value).replaceAll('|', '\\|');
  return [
    `| ${headers.join(' | ')} |`,
    `|${headers.map((_, column) => (column === 0 ? '---' : '---:')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(escape).join(' | ')} |`),
  ].join('\n');
}

/** The JSON of the cost figures: token kinds in snake_case, as everything tracer prints. */
export function costJson(section: CostSection): unknown {
  const group = (value: CostGroup) => ({ ...value, tokens: tokenCounts(value.tokens) });
  const conversation = (value: ConversationOutcome) => ({ ...value, tokens: tokenCounts(value.tokens) });
  return {
    ...group(section),
    by: section.by?.map(group) ?? null,
    unlanded: { ...group(section.unlanded), list: section.unlanded.list.map(conversation) },
    by_conversation: section.by_conversation.map(conversation),
  };
}
