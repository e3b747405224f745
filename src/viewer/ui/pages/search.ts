// The team view's full-text search (issue 32): a box on the project page that
// asks `/api/p/<org>/<project>/search` and lists the hits, best first, each
// with its snippet's matched words marked. The query is kept in the URL
// (`?search=`), so a search is a link too. A query the service cannot read is
// told in its own words (400 invalid_query), under the box.
import type { SearchHit, SearchResults } from '../../data-source.js';
import { api, ApiError, badge, h, replace, shortSha, time } from '../dom.js';

const SYNTAX = 'words, "a phrase", prefix*, AND, OR, NOT, ( )';

export function searchSection(base: string, params: URLSearchParams): HTMLElement {
  const input = h('input', {
    type: 'search',
    name: 'search',
    id: 'search-input',
    value: params.get('search') ?? '',
    placeholder: `Search conversations and commits: ${SYNTAX}`,
    'aria-label': 'Search conversations and commits',
  });
  const form = h(
    'form',
    { class: 'filters fulltext', role: 'search', id: 'search-form' },
    input,
    h('button', { type: 'submit' }, 'Search'),
  );
  const status = h('p', { class: 'muted', id: 'search-status', role: 'status' });
  const results = h('ol', { class: 'rows', id: 'search-results', 'aria-label': 'Search results' });
  const section = h('section', { 'aria-label': 'Search' }, form, status, results);

  // The latest search is the one shown: an earlier one answered late never replaces it.
  let latest = 0;
  const run = async (query: string) => {
    const own = (latest += 1);
    if (query === '') {
      replace(status);
      replace(results);
      return;
    }
    replace(status, 'Searching…');
    try {
      const found = await api<SearchResults>(`${base}/search?${new URLSearchParams({ q: query, limit: '30' })}`);
      if (own !== latest) return;
      replace(results, ...found.hits.map(hitItem));
      const notes = [
        found.hits.length === 0 ? 'Nothing matches.' : `${found.hits.length} best matches.`,
        found.pending > 0 ? `${found.pending} pushed conversations or commits are not indexed yet.` : '',
        found.content_hidden ? 'This token reads no transcripts: only commit subjects were searched.' : '',
      ];
      replace(status, notes.filter(Boolean).join(' '));
    } catch (error) {
      if (own !== latest) return;
      replace(results);
      replace(status, h('span', { class: 'error' }, error instanceof ApiError ? error.message : String(error)));
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = input.value.trim();
    if (query) params.set('search', query);
    else params.delete('search');
    history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}`);
    void run(query);
  });
  if (params.get('search')) void run(params.get('search')!.trim());
  return section;
}

function hitItem(hit: SearchHit): HTMLElement {
  const label = hit.kind === 'commit' ? shortSha(hit.commit ?? '') : (hit.conversation_id ?? '');
  return h(
    'li',
    { class: 'row hit' },
    h(
      'div',
      { class: 'row-head' },
      badge(hit.kind, 'kind'),
      hit.agent ? badge(hit.agent, 'agent') : null,
      hit.model ? badge(hit.model, 'model') : null,
      h('a', { href: hit.url, class: 'id' }, label),
      h('span', { class: 'muted' }, time(hit.ts)),
    ),
    h('p', { class: 'snippet' }, ...marked(hit.snippet, hit.marks)),
  );
}

/** The snippet as text nodes, each matched range in a <mark>: the text is never read as HTML. */
function marked(snippet: string, marks: ReadonlyArray<[number, number]>): Array<Node | string> {
  const parts: Array<Node | string> = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (start < at || end > snippet.length) continue;
    parts.push(snippet.slice(at, start), h('mark', null, snippet.slice(start, end)));
    at = end;
  }
  parts.push(snippet.slice(at));
  return parts;
}
