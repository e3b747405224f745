// `tracer blame` as text: git blame's layout with a two-letter tag after the
// commit, and in the parentheses the agent and model for an agent's line, the
// author for a person's.
import type { BlameDetails, BlameReport, BlameType } from './blame.js';

export const TAGS: Record<BlameType, string> = { ai: 'AI', human: 'HU', mixed: 'MX', unknown: '??', uncommitted: '--' };

const WHO_WIDTH = 40;

export function formatBlame(report: BlameReport, details: readonly BlameDetails[]): string {
  const whos = report.lines.map((line, index) => {
    if (line.type === 'uncommitted') return 'Not Committed Yet';
    if (line.type === 'ai' || (line.type === 'mixed' && line.agent !== null)) {
      const who = [line.agent ?? 'agent', line.model_id].filter((part) => part !== null).join(' ');
      const shown = line.type === 'mixed' ? `${who} + ${details[index]!.author}` : who;
      // First, so the column's width limit never cuts it off.
      return line.recovered ? `(recovered) ${shown}` : shown;
    }
    return details[index]!.author;
  });
  const whoWidth = Math.min(WHO_WIDTH, Math.max(0, ...whos.map((who) => who.length)));
  const numberWidth = String(Math.max(0, ...report.lines.map((line) => line.line))).length;
  const rename = report.lines.some((line, index) => line.commit !== null && details[index]!.origPath !== report.path);
  const pathWidth = rename ? Math.max(...details.map((detail) => detail.origPath.length)) : 0;
  let out = '';
  report.lines.forEach((line, index) => {
    const detail = details[index]!;
    const commit = line.commit === null ? '0'.repeat(8) : line.commit.slice(0, 8);
    const who = fit(whos[index]!, whoWidth);
    const date = line.commit === null ? '          ' : new Date(detail.authorTime * 1000).toISOString().slice(0, 10);
    const path = rename ? ` ${(line.commit === null ? report.path : detail.origPath).padEnd(pathWidth)}` : '';
    out += `${commit}${path} ${TAGS[line.type]} (${who} ${date} ${String(line.line).padStart(numberWidth)}) ${line.content}\n`;
  });
  return out;
}

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}
