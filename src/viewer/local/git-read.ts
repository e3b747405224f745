// What the viewer asks git: subjects and authors of the commits on screen (one
// `git log --stdin` for a page of them) and one commit's diff. Read-only
// commands only, run in the project's working tree, with a cap on the output
// so a commit of generated files cannot fill the memory.
import { execFile } from 'node:child_process';
import type { DiffFile } from '../data-source.js';

const DIFF_MAX_BYTES = 4 * 1024 * 1024;
const FILE_LINES_MAX = 5_000;

export interface CommitHeader {
  sha: string;
  subject: string;
  body: string;
  author: string;
  ts: string;
  parents: string[];
}

/** git in `repo`, with the command's environment less the GIT_ variables a hook may have left (they name another repository). */
function git(
  repo: string,
  args: string[],
  environment: NodeJS.ProcessEnv,
  input?: string,
  maxBuffer = DIFF_MAX_BYTES,
): Promise<{ out: string; capped: boolean }> {
  return new Promise((resolve) => {
    const env = { ...environment };
    for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key];
    const child = execFile(
      'git',
      ['-C', repo, '-c', 'core.quotePath=false', ...args],
      { env, maxBuffer, encoding: 'utf8' },
      (error, out) => {
        const capped = (error as { code?: unknown } | null)?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
        // A failing git (a commit gc'd away, no repository) means "git does not know": the page shows the ledger alone.
        resolve({ out: error && !capped ? '' : String(out), capped });
      },
    );
    // git may exit without reading its input (an unknown revision): the broken pipe is not the viewer's failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

const FIELD = '\u001f';
const RECORD = '\u001e';

export async function commitHeaders(
  repo: string | null,
  shas: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<Map<string, CommitHeader>> {
  const headers = new Map<string, CommitHeader>();
  if (repo === null || shas.length === 0) return headers;
  const format = ['%H', '%s', '%b', '%an', '%aI', '%P'].join(FIELD) + RECORD;
  const { out } = await git(
    repo,
    ['log', '--no-walk=unsorted', '--ignore-missing', '--stdin', `--format=${format}`],
    env,
    `${shas.join('\n')}\n`,
  );
  for (const record of out.split(RECORD)) {
    const [sha, subject, body, author, ts, parents] = record.replace(/^\n/, '').split(FIELD);
    if (sha === undefined || !/^[0-9a-f]{40,64}$/.test(sha)) continue;
    headers.set(sha, {
      sha,
      subject: subject ?? '',
      body: (body ?? '').trim(),
      author: author ?? '',
      ts: ts ?? '',
      parents: (parents ?? '').split(' ').filter(Boolean),
    });
  }
  return headers;
}

/** The commit's full sha when git knows it (a prefix is accepted), else undefined. */
export async function resolveCommit(repo: string | null, sha: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (repo === null) return undefined;
  const { out } = await git(repo, ['rev-parse', '--verify', '--quiet', `${sha}^{commit}`], env);
  const full = out.trim();
  return /^[0-9a-f]{40,64}$/.test(full) ? full : undefined;
}

/** The commit's diff against its first parent (the root commit against nothing), parsed per file. */
export async function commitDiff(repo: string, sha: string, env: NodeJS.ProcessEnv): Promise<{ files: DiffFile[]; truncated: boolean }> {
  const { out, capped } = await git(
    repo,
    ['show', '--format=', '--no-color', '--no-ext-diff', '--first-parent', '-m', '-U3', sha, '--'],
    env,
  );
  return { files: parseDiff(out), truncated: capped };
}

export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let hunk: DiffFile['hunks'][number] | undefined;
  let oldLine = 0;
  let newLine = 0;
  let lines = 0;
  for (const raw of text.split('\n')) {
    if (raw.startsWith('diff --git ')) {
      const match = /^diff --git a\/(.*) b\/(.*)$/.exec(raw);
      file = { path: match?.[2] ?? raw.slice(11), old_path: null, binary: false, truncated: false, hunks: [] };
      files.push(file);
      hunk = undefined;
      lines = 0;
    } else if (!file) {
      continue;
    } else if (raw.startsWith('@@')) {
      const match = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
      oldLine = Number(match?.[1] ?? 0);
      newLine = Number(match?.[2] ?? 0);
      hunk = { header: raw, lines: [] };
      if (lines < FILE_LINES_MAX) file.hunks.push(hunk);
    } else if (hunk) {
      if (++lines > FILE_LINES_MAX) {
        file.truncated = true;
        continue;
      }
      const op = raw[0];
      if (op === '+') hunk.lines.push({ op, old: null, new: newLine++, text: raw.slice(1), ai: null });
      else if (op === '-') hunk.lines.push({ op, old: oldLine++, new: null, text: raw.slice(1), ai: null });
      else if (op === ' ') hunk.lines.push({ op, old: oldLine++, new: newLine++, text: raw.slice(1), ai: null });
    } else if (raw.startsWith('rename from ')) {
      file.old_path = raw.slice(12);
    } else if (raw.startsWith('Binary files ')) {
      file.binary = true;
    } else if (raw.startsWith('+++ b/')) {
      file.path = raw.slice(6);
    }
  }
  return files;
}
