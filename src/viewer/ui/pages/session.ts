// `/p/<project>/sessions/<conversation>`: the transcript in the middle; the
// summary, the commits whose lines came from the session, the files written
// and the trace timeline beside it. The transcript starts loading at once,
// without waiting for the session's index.
import type { SessionDetail } from '../../data-source.js';
import { api, apiPath, badge, commitPath, enc, fileRef, h, homePath, projectLink, replace, shortSha, time } from '../dom.js';
import { markdown } from '../markdown.js';
import { sessionUsageSection } from './cost.js';
import { transcriptView } from './transcript.js';

export async function sessionPage(root: HTMLElement, projectId: string, conversationId: string): Promise<void> {
  document.title = `Session ${conversationId.slice(0, 8)} · tracer`;
  const base = `${apiPath(projectId)}/sessions/${enc(conversationId)}`;
  const aside = h('aside', { class: 'side', 'aria-label': 'Session' }, h('p', { class: 'muted' }, 'Reading the session…'));
  const head = h('div', { class: 'session-head' });
  const transcriptSlot = h('div', null);
  replace(
    root,
    h(
      'nav',
      { class: 'crumbs', 'aria-label': 'Breadcrumb' },
      h('a', { href: homePath() }, 'Projects'),
      ' / ',
      projectLink(projectId),
      ' / session',
    ),
    h('h1', { class: 'mono' }, conversationId),
    head,
    h('div', { class: 'session-layout' }, transcriptSlot, aside),
  );
  const detail = api<SessionDetail>(base);
  // Whether there is a transcript at all is in the detail; a missing one is said there, not as a failed page.
  transcriptSlot.appendChild(transcriptView(base));
  let session: SessionDetail;
  try {
    session = await detail;
  } catch (error) {
    replace(aside);
    throw error;
  }
  replace(
    head,
    h(
      'p',
      null,
      badge(session.agent, 'agent'),
      ...session.models.map((model) => badge(model, 'model')),
      ' ',
      time(session.first_ts),
      ' → ',
      time(session.last_ts),
      h('span', { class: 'muted' }, ` · ${session.events} events`),
    ),
    session.conversation_url ? h('p', { class: 'muted small mono' }, session.conversation_url) : null,
    ...privacyNotes(session),
  );
  replace(
    aside,
    h('h2', null, 'Summary'),
    session.summary ? markdown(session.summary) : h('p', { class: 'muted' }, 'No summary recorded.'),
    sessionUsageSection(base),
    h('h2', null, 'Commits'),
    session.commits.length === 0
      ? h('p', { class: 'muted' }, 'No commit holds lines from this session yet.')
      : h(
          'ul',
          { class: 'plain', id: 'session-commits' },
          ...session.commits.map((commit) =>
            h(
              'li',
              null,
              h('a', { href: commitPath(projectId, commit.sha), class: 'mono' }, shortSha(commit.sha)),
              ' ',
              commit.subject ?? '',
              ' ',
              h('span', { class: 'muted small' }, time(commit.ts)),
            ),
          ),
        ),
    h('h2', null, `Files written (${session.files_total})`),
    session.files.length === 0
      ? h('p', { class: 'muted' }, 'None.')
      : h('ul', { class: 'plain mono small' }, ...session.files.map((file) => h('li', null, fileRef(projectId, file)))),
    h('h2', null, 'Timeline'),
    timeline(session),
  );
}

function timeline(session: SessionDetail): HTMLElement {
  if (session.timeline.length === 0) return h('p', { class: 'muted' }, 'No trace recorded.');
  const rows = session.timeline.map((event) =>
    h(
      'li',
      null,
      h('span', { class: 'muted small' }, time(event.ts)),
      ' ',
      h('strong', null, event.event),
      event.tool ? ` ${event.tool}` : '',
      ...event.files.map((file) => h('div', { class: 'mono small' }, `${file.path} (+${file.lines})`)),
    ),
  );
  const cut =
    session.timeline_total > session.timeline.length
      ? h('p', { class: 'muted small' }, `First ${session.timeline.length} of ${session.timeline_total} events.`)
      : null;
  return h('div', null, h('ol', { class: 'timeline', id: 'timeline' }, ...rows), cut);
}

/** The team view (issue 31): a transcript forgotten or expired, a role that shows none, and the admin's way to forget it. */
function privacyNotes(session: SessionDetail): Array<HTMLElement | null> {
  const forgotten = session.forgotten;
  return [
    forgotten
      ? h(
          'p',
          { class: 'notice', id: 'forgotten' },
          forgotten.reason === 'retention' ? 'Transcript forgotten by retention on ' : 'Transcript forgotten on ',
          time(forgotten.ts),
          forgotten.reason === 'forget' && forgotten.by ? ` by ${forgotten.by}` : '',
          '.',
        )
      : null,
    session.transcript_hidden
      ? h(
          'p',
          { class: 'notice', id: 'transcript-hidden' },
          "This token's role shows no transcripts or summaries; sign in with a read or admin token to see them.",
        )
      : null,
    session.forget_url ? h('p', null, h('a', { href: session.forget_url, id: 'forget-link' }, 'Forget this conversation…')) : null,
  ];
}
