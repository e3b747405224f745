// Runs `git blame --porcelain` and reads its output as it streams: for every
// line of the file, the commit that introduced it and where the line was in
// that commit (path and line number), which is what a ledger's ranges name.
// git decides renames, moves and `-w`; tracer only reads the answer.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { unquoteC } from '../capture/ledger/diff-parse.js';

export interface BlamedLine {
  /** Line number in the blamed file. */
  line: number;
  /** All zeros for a line not committed yet. */
  commit: string;
  /** Path and line number of the line in `commit`. */
  origPath: string;
  origLine: number;
  author: string;
  /** Author time, seconds since the epoch. */
  authorTime: number;
  content: string;
}

export interface BlameRequest {
  cwd: string;
  env: NodeJS.ProcessEnv;
  path: string;
  rev?: string;
  /** Inclusive, 1-based. */
  lines?: { start: number; end: number };
  /** Extra git blame options (`-w`, `-M`, `-C`). */
  options?: readonly string[];
}

export interface BlameOutcome {
  lines: BlamedLine[];
  /** A NUL among the first 8000 bytes of content: git's own test for a binary file. */
  binary: boolean;
  /** git's exit code and first error line, when it failed. */
  failure?: { code: number; stderr: string };
}

export const UNCOMMITTED = /^0+$/;

export function runBlame(request: BlameRequest): Promise<BlameOutcome> {
  const args = ['blame', '--porcelain', ...(request.options ?? [])];
  if (request.lines) args.push('-L', `${request.lines.start},${request.lines.end}`);
  if (request.rev !== undefined) args.push(request.rev);
  args.push('--', request.path);
  // The C locale keeps git's messages in English; nothing else of the user's environment changes.
  const child = spawn('git', args, { cwd: request.cwd, env: { ...request.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const parser = new PorcelainParser();
  const decoder = new StringDecoder('utf8');
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => parser.push(decoder.write(chunk)));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      parser.push(`${decoder.end()}\n`);
      const outcome: BlameOutcome = { lines: parser.lines, binary: parser.binary };
      if (code !== 0) outcome.failure = { code: code ?? -1, stderr };
      resolve(outcome);
    });
  });
}

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (\d+) (\d+)/;

/** Porcelain: a header per line, a commit's details the first time it appears, `filename` whenever it may differ, then TAB + content. */
export class PorcelainParser {
  readonly lines: BlamedLine[] = [];
  binary = false;
  private rest = '';
  private contentBytes = 0;
  private current?: { commit: string; origLine: number; line: number };
  private readonly commits = new Map<string, { path: string; author: string; authorTime: number }>();

  push(text: string): void {
    const all = this.rest + text;
    let start = 0;
    let newline = all.indexOf('\n', start);
    while (newline !== -1) {
      this.line(all.slice(start, newline));
      start = newline + 1;
      newline = all.indexOf('\n', start);
    }
    this.rest = all.slice(start);
  }

  private line(text: string): void {
    if (text.startsWith('\t')) {
      const current = this.current;
      if (!current) return;
      const content = text.slice(1);
      if (this.contentBytes < 8000 && content.includes('\u0000')) this.binary = true;
      this.contentBytes += content.length + 1;
      const details = this.commits.get(current.commit);
      this.lines.push({
        line: current.line,
        commit: current.commit,
        origPath: details?.path ?? '',
        origLine: current.origLine,
        author: details?.author ?? '',
        authorTime: details?.authorTime ?? 0,
        content,
      });
      this.current = undefined;
      return;
    }
    const header = HEADER.exec(text);
    if (header) {
      this.current = { commit: header[1]!, origLine: Number(header[2]), line: Number(header[3]) };
      if (!this.commits.has(header[1]!)) this.commits.set(header[1]!, { path: '', author: '', authorTime: 0 });
      return;
    }
    const details = this.current && this.commits.get(this.current.commit);
    if (!details) return;
    if (text.startsWith('filename ')) details.path = unquoteName(text.slice('filename '.length));
    else if (text.startsWith('author ')) details.author = text.slice('author '.length);
    else if (text.startsWith('author-time ')) details.authorTime = Number(text.slice('author-time '.length));
  }
}

/** git C-quotes a file name holding unusual characters (core.quotePath). */
function unquoteName(name: string): string {
  return name.startsWith('"') ? unquoteC(name) : name;
}
