// Reads the output of `git diff-tree -p --unified=0` into the lines each file
// gained. Only what attribution needs: the new-side path, and every added line
// with its line number in the new file. Deleted files, binary files, submodules
// and symlinks add no lines anyone wrote there, so they are left out.

export interface AddedLine {
  /** 1-based line number in the file as the commit has it. */
  line: number;
  text: string;
}

export type AddedLines = Map<string, AddedLine[]>;

/** Gitlinks (160000) and symlinks (120000): their "content" is a commit id or a link target. */
const NOT_TEXT_MODE = /\b1[26]0000\b/;
const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

export function parseAddedLines(diff: string): AddedLines {
  const files: AddedLines = new Map();
  const lines = diff.split('\n');
  let path: string | undefined;
  let skip = false;
  let index = 0;
  while (index < lines.length) {
    const line = lines[index++]!;
    if (line.startsWith('diff --git ')) {
      path = undefined;
      skip = false;
      continue;
    }
    if (line.startsWith('Binary files ') || ((line.startsWith('index ') || line.includes(' mode ')) && NOT_TEXT_MODE.test(line))) {
      skip = true;
      continue;
    }
    if (line.startsWith('+++ ')) {
      path = newSidePath(line.slice(4));
      continue;
    }
    const hunk = HUNK_HEADER.exec(line);
    if (!hunk) continue;
    let oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
    let newLeft = hunk[3] === undefined ? 1 : Number(hunk[3]);
    let lineNumber = Number(hunk[2]);
    // Count the hunk's lines off its header: an added line may itself start with "+++ " or "diff --git".
    while ((oldLeft > 0 || newLeft > 0) && index < lines.length) {
      const body = lines[index++]!;
      const marker = body[0];
      if (marker === '\\') continue;
      if (marker === '-') {
        oldLeft -= 1;
      } else if (marker === '+') {
        if (path !== undefined && !skip) pushLine(files, path, { line: lineNumber, text: body.slice(1) });
        lineNumber += 1;
        newLeft -= 1;
      } else {
        oldLeft -= 1;
        newLeft -= 1;
        lineNumber += 1;
      }
    }
  }
  return files;
}

function pushLine(files: AddedLines, path: string, line: AddedLine): void {
  const list = files.get(path);
  if (list) list.push(line);
  else files.set(path, [line]);
}

/** `b/<path>`, possibly C-quoted, possibly with the tab git adds after names holding a space; `/dev/null` for a deletion. */
function newSidePath(raw: string): string | undefined {
  const name = raw.endsWith('\t') ? raw.slice(0, -1) : raw;
  if (name === '/dev/null') return undefined;
  const unquoted = name.startsWith('"') ? unquoteC(name) : name;
  return unquoted.startsWith('b/') ? unquoted.slice(2) : unquoted;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** Undoes git's quoting of unusual path names (core.quotePath): C escapes and octal UTF-8 bytes. */
export function unquoteC(quoted: string): string {
  const inner = quoted.slice(1, quoted.endsWith('"') ? -1 : undefined);
  const bytes: number[] = [];
  for (let index = 0; index < inner.length; index += 1) {
    const character = inner[index]!;
    if (character !== '\\') {
      bytes.push(...Buffer.from(character, 'utf8'));
      continue;
    }
    const next = inner[index + 1] ?? '';
    const octal = /^[0-7]{3}/.exec(inner.slice(index + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      index += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      index += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
