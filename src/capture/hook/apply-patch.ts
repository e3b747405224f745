// Codex edits files with `apply_patch`, whose input is its own patch format:
//
//   *** Begin Patch
//   *** Add File: path        (every line "+text")
//   *** Update File: path     (hunks of " context", "-old", "+new"; maybe "*** Move to: new")
//   *** Delete File: path
//   *** End Patch
//
// What the agent wrote is the "+" lines: each run of them is one fragment of whole
// lines, looked up in the file as it stands after the patch.
import type { FileWrite } from './hook-event.js';

const FILE_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE_HEADER = /^\*\*\* Move to: (.+)$/;

export function isApplyPatch(text: string): boolean {
  return text.includes('*** Begin Patch');
}

export function parseApplyPatch(patch: string): FileWrite[] {
  const writes: FileWrite[] = [];
  let current: FileWrite | undefined;
  let run: string[] = [];
  const endRun = () => {
    if (current && run.length > 0) current.fragments.push({ text: run.join('\n'), wholeLines: true });
    run = [];
  };
  for (const raw of patch.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const header = FILE_HEADER.exec(line);
    if (header) {
      endRun();
      current = header[1] === 'Delete' ? undefined : { filePath: header[2]!.trim(), fragments: [] };
      if (current) writes.push(current);
      continue;
    }
    const move = MOVE_HEADER.exec(line);
    if (move && current) {
      current.filePath = move[1]!.trim();
      continue;
    }
    if (line.startsWith('+')) run.push(line.slice(1));
    else endRun();
  }
  endRun();
  return writes.filter((write) => write.fragments.length > 0);
}
