// The transcript, a page at a time: the first page is on screen as soon as it
// arrives, the next one loads when the reader nears the end (or presses the
// button). A tool call is folded with its input (or diff) and its result,
// which may arrive pages later, matched by the call's id.
import type { DiffLine, TranscriptEntry, TranscriptPage } from '../../data-source.js';
import { api, h, replace, time } from '../dom.js';
import { markdown } from '../markdown.js';

const FIRST_PAGE = 60;
const NEXT_PAGE = 200;

export function transcriptView(apiBase: string): HTMLElement {
  const list = h('ol', { class: 'transcript', id: 'transcript', 'aria-label': 'Transcript' });
  const status = h('p', { class: 'muted', role: 'status' }, 'Loading the transcript…');
  const button = h('button', { type: 'button', hidden: true }, 'Load more');
  const sentinel = h('div', { class: 'sentinel' });
  const section = h(
    'section',
    { 'aria-labelledby': 'transcript-title' },
    h('h2', { id: 'transcript-title' }, 'Transcript'),
    list,
    status,
    button,
    sentinel,
  );
  const calls = new Map<string, HTMLElement>();
  let next: string | null | undefined;
  let loading = false;

  const load = async () => {
    if (loading || next === null) return;
    loading = true;
    button.disabled = true;
    try {
      const search = new URLSearchParams({ limit: String(next === undefined ? FIRST_PAGE : NEXT_PAGE) });
      if (next) search.set('cursor', next);
      const page = await api<TranscriptPage>(`${apiBase}/transcript?${search}`);
      for (const entry of page.entries) {
        const item = entryView(entry, calls);
        if (item) list.appendChild(item);
      }
      next = page.next;
      const read = page.size === 0 ? 100 : Math.round((100 * page.position) / page.size);
      const skipped = page.skipped > 0 ? ` ${page.skipped} unreadable line(s) skipped.` : '';
      replace(status, next === null ? `End of transcript.${skipped}` : `${read}% of ${formatBytes(page.size)} read.${skipped}`);
      button.hidden = next === null;
    } catch (error) {
      next = null;
      replace(status, error instanceof Error ? error.message : String(error));
      button.hidden = true;
    } finally {
      loading = false;
      button.disabled = false;
    }
  };
  button.addEventListener('click', () => void load());
  new IntersectionObserver(
    (seen) => {
      if (seen.some((entry) => entry.isIntersecting)) void load();
    },
    { rootMargin: '800px' },
  ).observe(sentinel);
  void load();
  return section;
}

function entryView(entry: TranscriptEntry, calls: Map<string, HTMLElement>): HTMLElement | undefined {
  const stamp = entry.ts ? h('span', { class: 'muted small' }, time(entry.ts)) : null;
  switch (entry.kind) {
    case 'message':
      return h(
        'li',
        { class: `msg msg-${entry.role}`, id: `l${entry.line}` },
        h(
          'div',
          { class: 'msg-head' },
          h('strong', null, entry.role === 'user' ? 'User' : entry.role === 'assistant' ? 'Assistant' : 'System'),
          entry.model ? h('span', { class: 'muted small' }, entry.model) : null,
          stamp,
        ),
        markdown(entry.text),
        entry.truncated ? h('p', { class: 'muted small' }, '(cut: the message is longer)') : null,
      );
    case 'thinking':
      return h('li', { class: 'msg msg-thinking' }, h('details', null, h('summary', null, 'Thinking'), h('pre', null, entry.text)));
    case 'tool_call': {
      const body = h('div', { class: 'tool-body' }, entry.diff ? diffView(entry.diff) : h('pre', null, entry.input));
      const details = h(
        'details',
        { class: 'tool' },
        h(
          'summary',
          null,
          h('span', { class: 'tool-name' }, entry.name),
          entry.file ? h('span', { class: 'mono small' }, ` ${entry.file}`) : null,
          ' ',
          stamp,
        ),
        body,
      );
      if (entry.diff) body.appendChild(h('details', { class: 'tool-input' }, h('summary', null, 'Input'), h('pre', null, entry.input)));
      if (entry.id) calls.set(entry.id, body);
      return h('li', { class: 'msg msg-tool', id: `l${entry.line}` }, details);
    }
    case 'tool_result': {
      const result = h(
        'div',
        { class: `tool-result${entry.error ? ' error' : ''}` },
        h('div', { class: 'muted small' }, entry.error ? 'Result (error)' : 'Result'),
        h('pre', null, entry.text),
      );
      const call = entry.id ? calls.get(entry.id) : undefined;
      if (call) {
        call.appendChild(result);
        return undefined;
      }
      return h('li', { class: 'msg msg-tool' }, h('details', { class: 'tool' }, h('summary', null, 'Tool result ', stamp), result));
    }
    case 'meta':
      return h('li', { class: 'msg msg-meta muted small' }, entry.text);
  }
}

export function diffView(lines: DiffLine[]): HTMLElement {
  return h(
    'pre',
    { class: 'diff' },
    ...lines.map((line) =>
      h(
        'span',
        { class: line.op === '+' ? 'add' : line.op === '-' ? 'del' : line.op === '@' ? 'hunk' : 'ctx' },
        `${line.op === '@' ? '@@ ' : line.op}${line.text}\n`,
      ),
    ),
  );
}

function formatBytes(bytes: number): string {
  return bytes >= 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
