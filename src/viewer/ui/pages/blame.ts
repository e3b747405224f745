// `/p/<project>/blame/<path>`: the file with a gutter saying who wrote each
// line (ai with agent, model and a link to the session; human; mixed;
// unknown; uncommitted). The gutter names a run of lines once, at its first.
import type { BlameLine, BlameResult } from '../../blame-source.js';
import { ApiError, api, apiPath, commitPath, enc, h, homePath, projectLink, replace, sessionPath, shortSha } from '../dom.js';
import { parseConversationUrl } from '../conversation-url.js';

export async function blamePage(root: HTMLElement, projectId: string, path: string): Promise<void> {
  document.title = `${path} · blame · tracer`;
  const rev = new URLSearchParams(location.search).get('rev');
  const crumbs = h(
    'nav',
    { class: 'crumbs', 'aria-label': 'Breadcrumb' },
    h('a', { href: homePath() }, 'Projects'),
    ' / ',
    projectLink(projectId),
    ' / blame',
  );
  let blame: BlameResult;
  try {
    blame = await api<BlameResult>(`${apiPath(projectId)}/blame/${path.split('/').map(enc).join('/')}${rev ? `?rev=${enc(rev)}` : ''}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 404) throw error;
    replace(root, crumbs, h('h1', { class: 'mono' }, path), h('p', { class: 'notice' }, error.message));
    return;
  }
  const counts = new Map<string, number>();
  for (const line of blame.lines) counts.set(line.type, (counts.get(line.type) ?? 0) + 1);
  replace(
    root,
    crumbs,
    h('h1', { class: 'mono' }, blame.path),
    h(
      'p',
      { class: 'muted' },
      `at ${blame.rev.length >= 40 ? shortSha(blame.rev) : blame.rev} · `,
      [...counts].map(([type, count]) => `${type} ${count}`).join(' · '),
    ),
    h(
      'table',
      { class: 'blame', id: 'blame' },
      h('tbody', null, ...blame.lines.map((line, index) => row(projectId, line, blame.lines[index - 1]))),
    ),
  );
}

function row(projectId: string, line: BlameLine, previous: BlameLine | undefined): HTMLElement {
  const first =
    !previous ||
    previous.commit !== line.commit ||
    previous.type !== line.type ||
    previous.conversation_url !== line.conversation_url ||
    previous.recovered !== line.recovered;
  return h(
    'tr',
    { class: `blame-${line.type}${first ? ' run-start' : ''}` },
    h('td', { class: 'who' }, first ? gutter(projectId, line) : ''),
    h('td', { class: 'ln' }, line.line),
    h('td', { class: 'code' }, line.content),
  );
}

function gutter(projectId: string, line: BlameLine): HTMLElement {
  const session = parseConversationUrl(line.conversation_url);
  return h(
    'span',
    { class: 'gutter' },
    h('span', { class: `badge ${line.type}` }, line.type),
    line.type === 'ai' || line.type === 'mixed' ? ` ${line.agent ?? ''}${line.model_id ? ` · ${line.model_id}` : ''}` : '',
    line.recovered ? [' ', h('span', { class: 'badge recovered', title: 're-attached by content hash' }, 'recovered')] : null,
    session ? [' ', h('a', { href: sessionPath(projectId, session.conversationId) }, 'session')] : null,
    line.commit ? [' ', h('a', { href: commitPath(projectId, line.commit), class: 'mono' }, shortSha(line.commit).slice(0, 7))] : null,
  );
}
