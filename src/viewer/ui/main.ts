// The viewer's pages, one per deep link. Navigation is plain links (each page
// is a document of its own), so bookmarks, the back button and new tabs work
// as they do everywhere.
import { ApiError, errorView, replace } from './dom.js';
import { blamePage } from './pages/blame.js';
import { commitPage } from './pages/commit.js';
import { projectPage } from './pages/project.js';
import { projectsPage } from './pages/projects.js';
import { sessionPage } from './pages/session.js';

async function route(root: HTMLElement): Promise<void> {
  const parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return projectsPage(root);
  if (parts[0] === 'p' && parts.length >= 2) {
    const project = parts[1]!;
    if (parts.length === 2) return projectPage(root, project);
    if (parts[2] === 'sessions' && parts.length === 4) return sessionPage(root, project, parts[3]!);
    if (parts[2] === 'commits' && parts.length === 4) return commitPage(root, project, parts[3]!);
    if (parts[2] === 'blame' && parts.length >= 4) return blamePage(root, project, parts.slice(3).join('/'));
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
