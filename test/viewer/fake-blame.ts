import { execFileSync } from 'node:child_process';
import { TracerError } from '../../src/core/errors.js';
import type { BlameFile, BlameLine } from '../../src/viewer/blame-source.js';

/**
 * A stand-in for issue 14's blameFile, with its interface and error codes,
 * until the real module is merged: the file as committed at HEAD, lines that
 * mention a person marked `human`, blank lines `unknown`, the others `ai` by
 * the given session. It tests the page, not attribution.
 */
export function fakeBlame(session: { agent: string; conversationId: string; model: string }): BlameFile {
  return async (repo, path, options) => {
    const rev = options.rev ?? 'HEAD';
    let commit: string;
    let text: string;
    try {
      commit = execFileSync('git', ['-C', repo, 'rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { encoding: 'utf8' }).trim();
    } catch {
      throw new TracerError('bad_revision', `${rev} is not a revision of this repository.`);
    }
    try {
      text = execFileSync('git', ['-C', repo, 'show', `${commit}:${path}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      throw new TracerError('path_not_tracked', `${path} is not tracked at ${rev}.`);
    }
    const lines = text
      .replace(/\n$/, '')
      .split('\n')
      .map((content, index): BlameLine => {
        const type = content.trim() === '' ? 'unknown' : /person|reviewed/.test(content) ? 'human' : 'ai';
        return {
          line: index + 1,
          commit,
          type,
          agent: type === 'ai' ? session.agent : null,
          model_id: type === 'ai' ? session.model : null,
          conversation_url: type === 'ai' ? `${session.agent}://session/${encodeURIComponent(session.conversationId)}` : null,
          content,
        };
      });
    return { path, rev: commit, lines };
  };
}
