// Blame as the viewer sees it: types only. The viewer never computes attribution
// itself; blame-wiring.ts adapts src/attribution/blame.ts, the one module that maps
// git blame onto ledgers for the command line and the viewer alike.

export type BlameLineType = 'ai' | 'human' | 'mixed' | 'unknown' | 'uncommitted';

export interface BlameLine {
  line: number;
  commit: string | null;
  type: BlameLineType;
  agent: string | null;
  model_id: string | null;
  conversation_url: string | null;
  /** Present, true, when reconcile re-attached the line by content hash. */
  recovered?: true;
  content: string;
}

export interface BlameResult {
  path: string;
  rev: string;
  lines: BlameLine[];
}

/** Where a project's file is blamed: its working tree, and its folder of ledgers. */
export interface BlameWhere {
  repo: string;
  projectDir: string;
}

/** Throws TracerError with codes such as `path_not_tracked` or `unknown_revision`. */
export type BlameFile = (where: BlameWhere, path: string, options: { rev?: string }) => Promise<BlameResult>;
