// The text form of `tracer context`: short lines an agent can read in its prompt.
// Conversation ids and commits are shortened; `--json` keeps them whole.
import type { ContextDigest } from './digest.js';

export function formatDigest(digest: ContextDigest): string {
  const out = [`tracer context for project ${digest.project_id}`];
  out.push(
    '',
    digest.sessions.length === 0 ? 'Recent sessions: none recorded yet.' : `Recent sessions (${digest.sessions.length}, newest first):`,
  );
  for (const session of digest.sessions) {
    out.push(
      `- ${session.agent} ${short(session.conversation_id, 12)}: ${session.first_ts} to ${session.last_ts}, ${session.events} event${session.events === 1 ? '' : 's'}`,
    );
    if (session.files.length > 0) out.push(`  files: ${listed(session.files, 8)}`);
    if (session.summary !== undefined) out.push(`  summary: ${oneLine(session.summary, 300)}`);
  }
  out.push(
    '',
    digest.commits.length === 0
      ? 'Recent commits: no attribution ledgers yet.'
      : `Recent commits (${digest.commits.length}, newest first; added lines by author):`,
  );
  for (const commit of digest.commits) {
    const { ai, human, mixed } = commit.lines;
    const files = commit.files.ai + commit.files.human + commit.files.mixed;
    const mixedLines = mixed > 0 ? `, mixed ${mixed}` : '';
    const mixedFiles = commit.files.mixed > 0 ? ` (${commit.files.mixed} mixed)` : '';
    out.push(
      `- ${commit.commit.slice(0, 12)}${commit.ts ? ` ${commit.ts}` : ''}: ai ${ai}, human ${human}${mixedLines} lines in ${files} file${files === 1 ? '' : 's'}${mixedFiles}`,
    );
  }
  return `${out.join('\n')}\n`;
}

function short(id: string, length: number): string {
  return id.length <= length ? id : `${id.slice(0, length)}…`;
}

function listed(items: readonly string[], max: number): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
