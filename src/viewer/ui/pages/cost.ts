// What the agents cost: the team view's cost section (over time, by agent,
// model and person, landed lines against written ones) and a session's tokens
// and cost turn by turn (both viewers). Every dollar figure names the price
// table it came from; a cost that could not be computed says so, never $0.
import type { CostBreakdown, CostRow, SessionUsage, TokenCounts } from '../../data-source.js';
import { count, money } from '../../../cost/money.js';
import { api, h, replace, time } from '../dom.js';

/** More days than this are shown by month. */
const DAYS_SHOWN = 45;

const allTokens = (tokens: TokenCounts) => tokens.input + tokens.output + tokens.cache_write + tokens.cache_read;

export function tokensText(tokens: TokenCounts): string {
  return `${count(tokens.input)} input · ${count(tokens.output)} output · ${count(tokens.cache_write)} cache write · ${count(tokens.cache_read)} cache read`;
}

export function costSection(apiBase: string): HTMLElement {
  const body = h('div', { class: 'cost-body' }, h('p', { class: 'muted' }, 'Reading the tokens…'));
  const section = h(
    'section',
    { class: 'cost', id: 'cost', 'aria-labelledby': 'cost-title' },
    h('h2', { id: 'cost-title' }, 'What the agents cost'),
    body,
  );
  void api<CostBreakdown>(`${apiBase}/cost`).then(
    (cost) => replace(body, ...costView(cost)),
    (error: unknown) =>
      replace(body, h('p', { class: 'muted' }, `The cost could not be read: ${error instanceof Error ? error.message : String(error)}`)),
  );
  return section;
}

function costView(cost: CostBreakdown): Array<HTMLElement | null> {
  const { totals } = cost;
  const unpriced = totals.unpriced_requests > 0 ? ` (cost unknown for ${count(totals.unpriced_requests)} requests)` : '';
  return [
    h(
      'p',
      { id: 'cost-totals' },
      `${count(totals.conversations)} sessions, ${count(totals.requests)} requests: ${tokensText(totals.tokens)} tokens, `,
      h('strong', null, money(totals.cost_usd)),
      unpriced,
      `. Lines: ${count(totals.written)} written, ${count(totals.landed)} landed.`,
    ),
    h('p', { class: 'muted small' }, `Prices: ${cost.prices.join('; ')}, the providers' list prices per token kind.`),
    cost.pending > 0
      ? h(
          'p',
          { class: 'notice catching-up', id: 'cost-pending' },
          `${count(cost.pending)} pushed transcripts are not read yet; their tokens come in once they are.`,
        )
      : null,
    h(
      'div',
      { class: 'share-body' },
      chart('Cost over time', 'cost-time', overTime(cost.by_day)),
      chart('By agent', 'cost-agent', cost.by_agent),
      chart('By model', 'cost-model', cost.by_model),
      chart(
        'By person',
        'cost-person',
        cost.by_person.map((row) => ({ ...row, key: row.key || 'unknown' })),
      ),
    ),
  ];
}

function overTime(days: CostRow[]): CostRow[] {
  if (days.length <= DAYS_SHOWN) return days;
  const months = new Map<string, CostRow>();
  for (const day of days) {
    const key = day.key.slice(0, 7);
    const month = months.get(key);
    if (!month) {
      months.set(key, { ...day, key, tokens: { ...day.tokens } });
      continue;
    }
    month.conversations += day.conversations;
    month.requests += day.requests;
    for (const kind of Object.keys(month.tokens) as Array<keyof TokenCounts>) month.tokens[kind] += day.tokens[kind];
    month.cost_usd = month.cost_usd === null && day.cost_usd === null ? null : (month.cost_usd ?? 0) + (day.cost_usd ?? 0);
    month.unpriced_requests += day.unpriced_requests;
    month.written += day.written;
    month.landed += day.landed;
  }
  return [...months.values()];
}

function chart(title: string, id: string, rows: CostRow[]): HTMLElement {
  const most = Math.max(0, ...rows.map((row) => row.cost_usd ?? 0));
  return h(
    'figure',
    { class: 'chart', id },
    h('figcaption', null, title),
    rows.length === 0
      ? h('p', { class: 'muted' }, 'Nothing yet.')
      : h(
          'table',
          { class: 'list share-table' },
          h(
            'tbody',
            null,
            ...rows.map((row) =>
              h(
                'tr',
                { 'data-key': row.key },
                h('th', { scope: 'row' }, row.key),
                h('td', { class: 'bar-cell' }, costBar(row.cost_usd ?? 0, most)),
                h('td', { class: 'num' }, money(row.cost_usd), row.unpriced_requests > 0 ? '+' : ''),
                h(
                  'td',
                  { class: 'num muted small' },
                  `${count(allTokens(row.tokens))} tokens · landed ${count(row.landed)} of ${count(row.written)} written`,
                ),
              ),
            ),
          ),
        ),
  );
}

function costBar(usd: number, most: number): HTMLElement {
  const bar = h('span', { class: 'bar', role: 'img', 'aria-label': money(usd), title: money(usd) });
  const part = h('span', { class: 'bar-ai' });
  part.style.width = `${most === 0 ? 0 : (100 * usd) / most}%`;
  bar.appendChild(part);
  return bar;
}

/** The session page's "Tokens and cost": the session's totals and a row per turn. */
export function sessionUsageSection(sessionApi: string): HTMLElement {
  const body = h('div', { id: 'session-usage' }, h('p', { class: 'muted' }, 'Reading the tokens…'));
  void api<SessionUsage>(`${sessionApi}/usage`).then(
    (usage) => replace(body, ...usageView(usage)),
    (error: unknown) =>
      replace(body, h('p', { class: 'muted' }, `The tokens could not be read: ${error instanceof Error ? error.message : String(error)}`)),
  );
  return h('div', null, h('h2', null, 'Tokens and cost'), body);
}

function usageView(usage: SessionUsage): HTMLElement[] {
  const written = usage.written === null ? '' : ` Its edits wrote ${count(usage.written)} lines.`;
  if (usage.usage !== 'known')
    return [h('p', { class: 'muted' }, `Tokens unknown: ${usage.reason ?? 'its agent writes no token counts'}.${written}`)];
  const refused = Object.entries(usage.refused).map(([code, n]) => `${n} × ${code}`);
  return [
    h(
      'p',
      { id: 'usage-totals' },
      `${count(usage.requests)} requests: ${tokensText(usage.tokens)} tokens, `,
      h('strong', null, money(usage.cost_usd)),
      usage.cost_known ? '' : ' (part of it cost unknown)',
      `.${written}`,
    ),
    refused.length > 0 ? h('p', { class: 'muted small' }, `Not counted (refused): ${refused.join(', ')}.`) : h('span', null),
    h(
      'table',
      { class: 'list usage-turns', id: 'usage-turns' },
      h(
        'thead',
        null,
        h('tr', null, h('th', null, 'Turn'), h('th', null, 'When'), h('th', { class: 'num' }, 'Tokens'), h('th', { class: 'num' }, 'Cost')),
      ),
      h(
        'tbody',
        null,
        ...usage.turns.map((turn) =>
          h(
            'tr',
            { 'data-turn': String(turn.turn), title: `${tokensText(turn.tokens)}; ${turn.requests} requests; ${turn.models.join(', ')}` },
            h('td', null, String(turn.turn)),
            h('td', { class: 'small' }, time(turn.ts)),
            h('td', { class: 'num' }, count(allTokens(turn.tokens))),
            h('td', { class: 'num' }, turn.cost_known ? money(turn.cost_usd) : `${money(turn.cost_usd)}+`),
          ),
        ),
      ),
    ),
    h('p', { class: 'muted small' }, `Prices: ${usage.prices}.`),
  ];
}
