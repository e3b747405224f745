// `/p/<project>`: sessions and commits, newest first, with filters (agent,
// model, dates, search) kept in the query string so a filtered view is a link
// too. The sessions list is asked for first: it is what the page is for.
import { catchingUpNotice } from './catching-up.js';
import { costSection } from './cost.js';
import { searchSection } from './search.js';
import { shareSection } from './share.js';
import type { CommitRow, Facets, Page, ProjectStats, ProjectSummary, SessionRow } from '../../data-source.js';
import {
  api,
  apiPath,
  badge,
  clip,
  commitPath,
  h,
  homePath,
  percent,
  replace,
  sessionPath,
  shareBar,
  shortSha,
  TEAM,
  time,
} from '../dom.js';

const FILTERS = ['agent', 'model', 'from', 'to', 'q'] as const;
const PAGE = 30;

export async function projectPage(root: HTMLElement, projectId: string): Promise<void> {
  document.title = `${projectId} · tracer`;
  const base = `${apiPath(projectId)}`;
  const params = new URLSearchParams(location.search);
  const heading = h('h1', null, projectId);
  const statsLine = h('p', { class: 'muted', id: 'stats' }, 'Reading the project…');
  const sessionsList = h('ol', { class: 'rows', id: 'sessions', 'aria-label': 'Sessions' });
  const commitsList = h('ol', { class: 'rows', id: 'commits', 'aria-label': 'Commits' });
  const sessionsMore = h('p', null);
  const commitsMore = h('p', null);
  const sessionsCount = h('span', { class: 'muted' });
  const commitsCount = h('span', { class: 'muted' });
  const form = filterForm(params);
  // The team view's share is read once per page; once a catch-up is done it is read again, in a fresh section.
  let share = TEAM ? shareSection(base) : null;
  let cost = TEAM ? costSection(base) : null;
  replace(
    root,
    h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: homePath() }, 'Projects'), ' / ', projectId),
    heading,
    statsLine,
    TEAM ? catchingUpNotice(base, () => caughtUp()) : null,
    TEAM ? searchSection(base, params) : null,
    share,
    cost,
    form,
    h(
      'div',
      { class: 'columns' },
      h(
        'section',
        { 'aria-labelledby': 'sessions-title' },
        h('h2', { id: 'sessions-title' }, 'Sessions ', sessionsCount),
        sessionsList,
        sessionsMore,
      ),
      h(
        'section',
        { 'aria-labelledby': 'commits-title' },
        h('h2', { id: 'commits-title' }, 'Commits ', commitsCount),
        commitsList,
        commitsMore,
      ),
    ),
  );

  const query = () => {
    const search = new URLSearchParams();
    for (const name of FILTERS) if (params.get(name)) search.set(name, params.get(name)!);
    return search;
  };
  const loadSessions = async (offset: number) => {
    const search = query();
    search.set('offset', String(offset));
    search.set('limit', String(PAGE));
    const page = await api<Page<SessionRow>>(`${base}/sessions?${search}`);
    if (offset === 0) replace(sessionsList);
    for (const session of page.items) sessionsList.appendChild(sessionItem(projectId, session));
    if (page.total === 0) replace(sessionsList, h('li', { class: 'muted' }, 'No session matches.'));
    replace(sessionsCount, `(${page.total})`);
    more(sessionsMore, page, () => loadSessions(page.offset + page.items.length));
  };
  const loadCommits = async (offset: number) => {
    const search = query();
    search.set('offset', String(offset));
    search.set('limit', String(PAGE));
    const page = await api<Page<CommitRow>>(`${base}/commits?${search}`);
    if (offset === 0) replace(commitsList);
    for (const commit of page.items) commitsList.appendChild(commitItem(projectId, commit));
    if (page.total === 0) replace(commitsList, h('li', { class: 'muted' }, 'No commit matches.'));
    replace(commitsCount, `(${page.total})`);
    more(commitsMore, page, () => loadCommits(page.offset + page.items.length));
  };
  const reload = () => Promise.all([loadSessions(0), loadCommits(0)]);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    for (const name of FILTERS) {
      const value = String(data.get(name) ?? '').trim();
      if (value) params.set(name, value);
      else params.delete(name);
    }
    history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}`);
    void reload();
  });
  form.addEventListener('change', (event) => {
    if (event.target instanceof HTMLSelectElement || (event.target instanceof HTMLInputElement && event.target.type === 'date'))
      form.requestSubmit();
  });

  const loadStats = () =>
    api<ProjectStats>(`${base}/stats`).then((stats) =>
      replace(
        statsLine,
        `${stats.sessions} sessions, ${stats.traces} traces, ${stats.commits} commits with a ledger, AI share of attributed lines ${percent(stats.ai_share)}`,
      ),
    );
  const loadFacets = () => api<Facets>(`${base}/facets`).then((facets) => fillFacets(form, facets, params));
  // What the page showed was read while the service was still folding a push in: read it all again.
  function caughtUp(): void {
    void reload();
    void loadStats();
    void loadFacets();
    const fresh = shareSection(base);
    share?.replaceWith(fresh);
    share = fresh;
    const freshCost = costSection(base);
    cost?.replaceWith(freshCost);
    cost = freshCost;
  }

  await loadSessions(0);
  void loadCommits(0);
  void api<ProjectSummary[]>(`${apiPath()}/projects`).then((projects) => {
    const project = projects.find((candidate) => candidate.id === projectId);
    if (project) {
      replace(heading, project.name);
      document.title = `${project.name} · tracer`;
    }
  });
  void loadStats();
  void loadFacets();
}

function filterForm(params: URLSearchParams): HTMLFormElement {
  const field = (label: string, control: HTMLElement) => h('label', null, h('span', null, label), control);
  return h(
    'form',
    { class: 'filters', role: 'search' },
    field('Agent', h('select', { name: 'agent' }, h('option', { value: '' }, 'All'))),
    field('Model', h('select', { name: 'model' }, h('option', { value: '' }, 'All'))),
    field('From', h('input', { type: 'date', name: 'from', value: params.get('from') ?? '' })),
    field('To', h('input', { type: 'date', name: 'to', value: params.get('to') ?? '' })),
    field(
      'Search',
      h('input', { type: 'search', name: 'q', value: params.get('q') ?? '', placeholder: 'id, summary, file, subject  ( / )' }),
    ),
    h('button', { type: 'submit' }, 'Filter'),
  );
}

function fillFacets(form: HTMLFormElement, facets: Facets, params: URLSearchParams): void {
  for (const [name, values] of [
    ['agent', facets.agents],
    ['model', facets.models],
  ] as const) {
    const select = form.querySelector<HTMLSelectElement>(`select[name=${name}]`)!;
    // Filled again after a catch-up: everything but "All" is replaced.
    while (select.options.length > 1) select.remove(1);
    for (const value of values) select.appendChild(h('option', { value, selected: params.get(name) === value }, value));
  }
}

function more(slot: HTMLElement, page: Page<unknown>, load: () => Promise<void>): void {
  const shown = page.offset + page.items.length;
  if (shown >= page.total) return replace(slot);
  const button = h('button', { type: 'button' }, `Show more (${page.total - shown} left)`);
  button.addEventListener('click', () => {
    button.disabled = true;
    void load();
  });
  replace(slot, button);
}

function sessionItem(projectId: string, session: SessionRow): HTMLElement {
  const files = session.files.slice(0, 4);
  return h(
    'li',
    { class: 'row session' },
    h(
      'div',
      { class: 'row-head' },
      badge(session.agent, 'agent'),
      ...session.models.map((model) => badge(model, 'model')),
      h('a', { href: sessionPath(projectId, session.conversation_id), class: 'id' }, clip(session.conversation_id, 24)),
      h('span', { class: 'muted' }, time(session.first_ts), ' → ', time(session.last_ts)),
      session.person ? h('span', { class: 'person muted' }, `by ${session.person}`) : null,
    ),
    session.summary ? h('p', { class: 'summary' }, clip(session.summary, 280)) : null,
    h(
      'p',
      { class: 'muted small' },
      `${session.events} events`,
      session.files_total > 0
        ? `, ${session.files_total} files: ${files.join(', ')}${session.files_total > files.length ? ', …' : ''}`
        : '',
      session.has_transcript ? '' : ' · no transcript',
    ),
  );
}

function commitItem(projectId: string, commit: CommitRow): HTMLElement {
  return h(
    'li',
    { class: 'row commit' },
    h(
      'div',
      { class: 'row-head' },
      h('a', { href: commitPath(projectId, commit.sha), class: 'id mono' }, shortSha(commit.sha)),
      h('span', { class: 'subject' }, commit.subject ?? (TEAM ? '' : '(not in this repository)')),
    ),
    h(
      'div',
      { class: 'row-head muted small' },
      shareBar(commit.lines),
      `ai ${commit.lines.ai} · mixed ${commit.lines.mixed} · human ${commit.lines.human}`,
      ' · ',
      commit.author ?? '',
      ' · ',
      time(commit.ts),
    ),
  );
}
