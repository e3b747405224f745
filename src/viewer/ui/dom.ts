// Building the page from untrusted text: every string becomes a text node or
// an attribute value through the DOM, never HTML. The one exception is
// markdown.ts, whose renderer escapes raw HTML.

export type Child = Node | string | number | null | undefined | false | Child[];
type Attributes = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T>(path: string): Promise<T> {
  const response = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
    throw new ApiError(response.status, body.code ?? 'http_error', body.message ?? `The viewer answered ${response.status}.`);
  }
  return (await response.json()) as T;
}

export const enc = encodeURIComponent;

/**
 * Where the bundle is mounted, from the shell's meta tags: '' for `tracer view`,
 * '/ui' for the team view of `tracer serve`, where a project id is
 * `<org>/<project>` and each part is a path segment of its own.
 */
export const BASE = document.querySelector('meta[name="tracer-base"]')?.getAttribute('content') ?? '';
export const TEAM = document.querySelector('meta[name="tracer-mode"]')?.getAttribute('content') === 'team';
/** Path segments of a project id in a URL. */
export const PROJECT_PARTS = TEAM ? 2 : 1;

export function homePath(): string {
  return `${BASE}/`;
}

function projectSegments(projectId: string): string {
  return TEAM ? projectId.split('/').map(enc).join('/') : enc(projectId);
}

export function projectPath(projectId: string): string {
  return `${BASE}/p/${projectSegments(projectId)}`;
}

/** The JSON API of a project, or of the viewer with no project. */
export function apiPath(projectId?: string): string {
  return projectId === undefined ? `${BASE}/api` : `${BASE}/api/p/${projectSegments(projectId)}`;
}

export function sessionPath(projectId: string, conversationId: string): string {
  return `${projectPath(projectId)}/sessions/${enc(conversationId)}`;
}

export function commitPath(projectId: string, sha: string): string {
  return `${projectPath(projectId)}/commits/${enc(sha)}`;
}

export function blamePath(projectId: string, path: string): string {
  return `${projectPath(projectId)}/blame/${path.split('/').map(enc).join('/')}`;
}

/** A file of the project: a link to its blame, or plain text in the team view (the service keeps no repository). */
export function fileRef(projectId: string, path: string): HTMLElement {
  return TEAM ? h('span', null, path) : h('a', { href: blamePath(projectId, path) }, path);
}

export function when(ts: string | null | undefined): string {
  if (!ts) return '—';
  const date = new Date(ts);
  if (Number.isNaN(date.getTime())) return ts;
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function time(ts: string | null | undefined): HTMLTimeElement | string {
  return ts ? h('time', { datetime: ts, title: ts }, when(ts)) : '—';
}

export function shortSha(sha: string): string {
  return sha.slice(0, 10);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export interface Counts {
  ai: number;
  human: number;
  mixed: number;
}

/** The AI / mixed / human bar: widths through the CSSOM, which the CSP allows (a style attribute it would not). */
export function shareBar(counts: Counts): HTMLElement {
  const total = counts.ai + counts.human + counts.mixed;
  const label = total === 0 ? 'no attributed lines' : `ai ${counts.ai}, mixed ${counts.mixed}, human ${counts.human} lines`;
  const bar = h('span', { class: 'bar', role: 'img', 'aria-label': label, title: label });
  for (const kind of ['ai', 'mixed', 'human'] as const) {
    if (counts[kind] === 0) continue;
    const part = h('span', { class: `bar-${kind}` });
    part.style.width = `${(100 * counts[kind]) / total}%`;
    bar.appendChild(part);
  }
  return bar;
}

export function percent(share: number | null): string {
  return share === null ? '—' : `${Math.round(share * 100)}%`;
}

export function badge(text: string, kind = ''): HTMLElement {
  return h('span', { class: `badge ${kind}`.trim() }, text);
}

export function errorView(error: unknown): HTMLElement {
  if (error instanceof ApiError && error.status === 404)
    return h(
      'section',
      { class: 'notice' },
      h('h1', null, 'Not found'),
      h('p', null, error.message),
      h('p', null, h('a', { href: homePath() }, 'All projects')),
    );
  const message = error instanceof Error ? error.message : String(error);
  return h(
    'section',
    { class: 'notice' },
    h('h1', null, 'Cannot show this'),
    h('p', null, message),
    h('p', null, h('a', { href: homePath() }, 'All projects')),
  );
}

let projectNames: Promise<Map<string, string>> | undefined;

/** A link to the project, named by its id until its repository's name arrives. */
export function projectLink(projectId: string): HTMLAnchorElement {
  const link = h('a', { href: projectPath(projectId) }, projectId);
  projectNames ??= api<Array<{ id: string; name: string }>>(`${apiPath()}/projects`).then(
    (projects) => new Map(projects.map((project) => [project.id, project.name])),
    () => new Map(),
  );
  void projectNames.then((names) => {
    const name = names.get(projectId);
    if (name) link.textContent = name;
  });
  return link;
}
