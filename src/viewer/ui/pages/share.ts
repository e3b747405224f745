// The team view's AI share: attributed lines over time (by day, or by month
// once the history is long), by agent, by model and by person, each as bars
// drawn through the CSSOM (shareBar) like every other bar of the viewer.
import type { ShareBreakdown, ShareRow } from '../../data-source.js';
import { api, h, percent, replace, shareBar } from '../dom.js';

/** More days than this are shown by month. */
const DAYS_SHOWN = 45;

export function shareSection(apiBase: string): HTMLElement {
  const body = h('div', { class: 'share-body' }, h('p', { class: 'muted' }, 'Reading the ledgers…'));
  const section = h(
    'section',
    { class: 'share', id: 'share', 'aria-labelledby': 'share-title' },
    h('h2', { id: 'share-title' }, 'AI share'),
    body,
  );
  void api<ShareBreakdown>(`${apiBase}/share`).then(
    (share) => {
      if (share.by_day.length === 0) return replace(body, h('p', { class: 'muted' }, 'No commit with a ledger yet.'));
      replace(
        body,
        chart('Over time', 'share-time', overTime(share.by_day)),
        chart('By agent', 'share-agent', share.by_agent),
        chart('By model', 'share-model', share.by_model),
        chart(
          'By person',
          'share-person',
          share.by_person.map((row) => ({ ...row, key: row.key || 'unknown' })),
        ),
      );
    },
    (error: unknown) =>
      replace(body, h('p', { class: 'muted' }, `The share could not be read: ${error instanceof Error ? error.message : String(error)}`)),
  );
  return section;
}

function overTime(days: ShareRow[]): ShareRow[] {
  if (days.length <= DAYS_SHOWN) return days;
  const months = new Map<string, ShareRow>();
  for (const day of days) {
    const key = day.key.slice(0, 7);
    const month = months.get(key) ?? { key, ai: 0, human: 0, mixed: 0 };
    month.ai += day.ai;
    month.human += day.human;
    month.mixed += day.mixed;
    months.set(key, month);
  }
  return [...months.values()];
}

function chart(title: string, id: string, rows: ShareRow[]): HTMLElement {
  return h(
    'figure',
    { class: 'chart', id },
    h('figcaption', null, title),
    rows.length === 0
      ? h('p', { class: 'muted' }, 'Nothing attributed.')
      : h(
          'table',
          { class: 'list share-table' },
          h(
            'tbody',
            null,
            ...rows.map((row) => {
              const all = row.ai + row.human + row.mixed;
              return h(
                'tr',
                { 'data-key': row.key },
                h('th', { scope: 'row' }, row.key),
                h('td', { class: 'bar-cell' }, shareBar(row)),
                h('td', { class: 'num' }, percent(all === 0 ? null : (row.ai + row.mixed / 2) / all)),
                h('td', { class: 'num muted small' }, `ai ${row.ai} · mixed ${row.mixed} · human ${row.human}`),
              );
            }),
          ),
        ),
  );
}
