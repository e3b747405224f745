// The viewer's pages, one per deep link. Navigation is plain links (each page
// is a document of its own), so bookmarks, the back button and new tabs work
// as they do everywhere.
import { ApiError, BASE, errorView, PROJECT_PARTS, replace } from './dom.js';
import { blamePage } from './pages/blame.js';
import { commitPage } from './pages/commit.js';
import { projectPage } from './pages/project.js';
import { projectsPage } from './pages/projects.js';
import { sessionPage } from './pages/session.js';

async function route(root: HTMLElement): Promise<void> {
  const path = location.pathname.startsWith(`${BASE}/`) ? location.pathname.slice(BASE.length) : location.pathname;
  const all = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (all.length === 0) return projectsPage(root);
  if (all[0] === 'p' && all.length > PROJECT_PARTS) {
    const project = all.slice(1, 1 + PROJECT_PARTS).join('/');
    // What follows the project id: sessions/<id>, commits/<sha>, blame/<path>.
    const parts = all.slice(PROJECT_PARTS + 1);
    if (parts.length === 0) return projectPage(root, project);
    if (parts[0] === 'sessions' && parts.length === 2) return sessionPage(root, project, parts[1]!);
    if (parts[0] === 'commits' && parts.length === 2) return commitPage(root, project, parts[1]!);
    if (parts[0] === 'blame' && parts.length >= 2) return blamePage(root, project, parts.slice(1).join('/'));
  }
  document.title = 'Not found · tracer';
  replace(root, errorView(new ApiError(404, 'not_found', 'This page does not exist.')));
}

const root = document.getElementById('app')!;
route(root).catch((error: unknown) => replace(root, errorView(error)));

// `/` anywhere focuses the page's search box, as on most sites.
document.addEventListener('keydown', (event) => {
  if (event.key !== '/' || event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) return;
  const search = document.querySelector<HTMLInputElement>('input[type=search]');
  if (search) {
    event.preventDefault();
    search.focus();
  }
});
