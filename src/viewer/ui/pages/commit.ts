// `/p/<project>/commits/<sha>`: the ledger read (files, ranges by
// contributor, the sessions behind them with their summaries) and git's diff
// with every added line an agent wrote marked `ai` in its own gutter.
import type { CommitDetail, CommitFile, DiffFile, RangeByContributor } from '../../data-source.js';
import {
  api,
  apiPath,
  TEAM,
  badge,
  enc,
  fileRef,
  h,
  homePath,
  projectLink,
  replace,
  sessionPath,
  shareBar,
  shortSha,
  time,
} from '../dom.js';
import { markdown } from '../markdown.js';

export async function commitPage(root: HTMLElement, projectId: string, sha: string): Promise<void> {
  document.title = `Commit ${sha.slice(0, 10)} · tracer`;
  const commit = await api<CommitDetail>(`${apiPath(projectId)}/commits/${enc(sha)}`);
  document.title = `${commit.subject ?? shortSha(commit.sha)} · tracer`;
  replace(
    root,
    h(
      'nav',
      { class: 'crumbs', 'aria-label': 'Breadcrumb' },
      h('a', { href: homePath() }, 'Projects'),
      ' / ',
      projectLink(projectId),
      ' / commit',
    ),
    h('h1', null, commit.subject ?? shortSha(commit.sha)),
    h(
      'p',
      { class: 'muted' },
      h('span', { class: 'mono' }, commit.sha),
      commit.author ? ` · ${commit.author}` : '',
      ' · ',
      time(commit.ts),
    ),
    commit.body ? h('pre', { class: 'commit-body' }, commit.body) : null,
    h('p', null, shareBar(commit.lines), ` ai ${commit.lines.ai} · mixed ${commit.lines.mixed} · human ${commit.lines.human} lines`),
    commit.has_ledger
      ? null
      : h('p', { class: 'notice' }, 'No ledger for this commit: it was made without tracer, or before it was set up.'),
    sessions(projectId, commit),
    files(projectId, commit.files),
    diff(commit),
  );
}

function sessions(projectId: string, commit: CommitDetail): HTMLElement | null {
  if (commit.sessions.length === 0) return null;
  return h(
    'section',
    { 'aria-labelledby': 'sessions-title' },
    h('h2', { id: 'sessions-title' }, 'Conversations behind it'),
    h(
      'ul',
      { class: 'plain', id: 'commit-sessions' },
      ...commit.sessions.map((session) =>
        h(
          'li',
          { class: 'row' },
          session.agent ? badge(session.agent, 'agent') : null,
          ' ',
          h('a', { href: sessionPath(projectId, session.conversation_id), class: 'mono' }, session.conversation_id),
          session.summary ? markdown(session.summary) : null,
        ),
      ),
    ),
  );
}

function files(projectId: string, list: CommitFile[]): HTMLElement | null {
  if (list.length === 0) return null;
  const rows = list.map((file) =>
    h(
      'tr',
      null,
      h('td', { class: 'mono' }, fileRef(projectId, file.path)),
      h('td', null, file.type ? badge(file.type, file.type) : '—'),
      h(
        'td',
        null,
        ...file.conversations.map((conversation) =>
          h(
            'div',
            null,
            badge(conversation.type, conversation.type),
            ' ',
            conversation.agent ?? (conversation.type === 'human' ? 'person' : ''),
            conversation.model_id ? ` (${conversation.model_id})` : '',
            ': ',
            h('span', { class: 'mono' }, rangesText(conversation.ranges)),
          ),
        ),
        file.recovered.length > 0
          ? h(
              'div',
              { class: 'recovered' },
              badge('recovered', 'recovered'),
              ' by content hash: ',
              h('span', { class: 'mono' }, rangesText(file.recovered)),
            )
          : null,
      ),
    ),
  );
  return h(
    'section',
    { 'aria-labelledby': 'files-title' },
    h('h2', { id: 'files-title' }, 'Files and ranges'),
    h(
      'table',
      { class: 'list' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', { scope: 'col' }, 'File'),
          h('th', { scope: 'col' }, 'Written by'),
          h('th', { scope: 'col' }, 'Lines by contributor'),
        ),
      ),
      h('tbody', null, ...rows),
    ),
  );
}

function rangesText(ranges: readonly RangeByContributor[]): string {
  return ranges
    .map((range) => (range.start_line === range.end_line ? `${range.start_line}` : `${range.start_line}–${range.end_line}`))
    .join(', ');
}

function diff(commit: CommitDetail): HTMLElement {
  const title = h('h2', { id: 'diff-title' }, 'Diff');
  if (commit.diff === null)
    return h(
      'section',
      null,
      title,
      h(
        'p',
        { class: 'muted' },
        TEAM
          ? 'The trace service keeps no repository, so there is no diff to show; tracer view in a clone shows it.'
          : 'This commit is not in the local repository, so there is no diff to show.',
      ),
    );
  return h(
    'section',
    { 'aria-labelledby': 'diff-title' },
    title,
    h(
      'p',
      { class: 'muted small' },
      'Lines marked ',
      badge('ai', 'ai'),
      ' were written by an agent, per the ledger.',
      commit.files.some((file) => file.recovered.length > 0)
        ? [
            ' Those also marked ',
            badge('recovered', 'recovered'),
            " were re-attached by their content hash: the branch's commits were gone, so they could not be followed through its diffs.",
          ]
        : null,
    ),
    ...commit.diff.map(fileDiff),
    commit.diff_truncated ? h('p', { class: 'notice' }, 'The diff is cut: it is larger than the viewer shows.') : null,
  );
}

function fileDiff(file: DiffFile): HTMLElement {
  const rows: HTMLElement[] = [];
  for (const hunk of file.hunks) {
    rows.push(h('tr', { class: 'hunk' }, h('td', { colspan: 4 }, hunk.header)));
    for (const line of hunk.lines) {
      const kind = line.op === '+' ? 'add' : line.op === '-' ? 'del' : 'ctx';
      rows.push(
        h(
          'tr',
          { class: `${kind}${line.ai ? ' ai-line' : ''}${line.recovered ? ' recovered-line' : ''}` },
          h('td', { class: 'ln' }, line.old ?? ''),
          h('td', { class: 'ln' }, line.new ?? ''),
          h(
            'td',
            { class: 'who' },
            line.ai ? h('span', { class: 'badge ai', title: `agent: ${line.ai}` }, 'ai') : '',
            line.recovered ? [' ', h('span', { class: 'badge recovered', title: 're-attached by content hash' }, 'recovered')] : null,
          ),
          h('td', { class: 'code' }, `${line.op}${line.text}`),
        ),
      );
    }
  }
  return h(
    'details',
    { class: 'file-diff', open: true },
    h('summary', { class: 'mono' }, file.old_path ? `${file.old_path} → ${file.path}` : file.path),
    file.binary ? h('p', { class: 'muted' }, 'Binary file.') : h('table', { class: 'diff-table' }, h('tbody', null, ...rows)),
    file.truncated ? h('p', { class: 'muted small' }, 'Cut: this file has more changed lines.') : null,
  );
}
