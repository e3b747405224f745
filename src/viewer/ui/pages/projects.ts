import type { ProjectStats, ProjectSummary } from '../../data-source.js';
import { api, apiPath, h, percent, projectPath, replace, time } from '../dom.js';

/** `/`: every project of $TRACER_HOME; the figures of each arrive on their own, so a big project never holds up the list. */
export async function projectsPage(root: HTMLElement): Promise<void> {
  document.title = 'Projects · tracer';
  const projects = await api<ProjectSummary[]>(`${apiPath()}/projects`);
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'list' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ...['Repository', 'Path', 'Last activity', 'Sessions', 'Commits', 'AI share'].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    body,
  );
  replace(
    root,
    h('h1', null, 'Projects'),
    projects.length === 0 ? h('p', { class: 'notice' }, 'No project yet: run tracer init in a repository, then let an agent work.') : table,
  );
  const rows: Array<() => Promise<void>> = [];
  for (const project of projects) {
    const cells = {
      last: h('td', null, time(project.last_activity)),
      sessions: h('td', { class: 'num' }, '…'),
      commits: h('td', { class: 'num' }, '…'),
      share: h('td', { class: 'num' }, '…'),
    };
    body.appendChild(
      h(
        'tr',
        { 'data-project': project.id },
        h('td', null, h('a', { href: projectPath(project.id) }, project.name)),
        h('td', { class: 'path' }, project.repo_path ?? '—'),
        cells.last,
        cells.sessions,
        cells.commits,
        cells.share,
      ),
    );
    rows.push(() =>
      api<ProjectStats>(`${apiPath(project.id)}/stats`).then(
        (stats) => {
          replace(cells.sessions, String(stats.sessions));
          replace(cells.commits, String(stats.commits));
          replace(cells.share, percent(stats.ai_share));
          if (stats.last_activity) replace(cells.last, time(stats.last_activity));
        },
        () => replace(cells.sessions, '?'),
      ),
    );
  }
  // One project at a time, most recent first: each may index a large traces.jsonl.
  for (const row of rows) await row();
}
