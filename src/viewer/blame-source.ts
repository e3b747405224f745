/**
 * The blame module of issue 14, as the viewer sees it: types only. The viewer
 * never computes attribution itself; the command wires the real `blameFile`
 * (see blame-wiring.ts) and tests inject a fake with this shape.
 */
export type BlameLineType = 'ai' | 'human' | 'mixed' | 'unknown' | 'uncommitted';

export interface BlameLine {
  line: number;
  commit: string | null;
  type: BlameLineType;
  agent: string | null;
  model_id: string | null;
  conversation_url: string | null;
  content: string;
}

export interface BlameResult {
  path: string;
  rev: string;
  lines: BlameLine[];
}

/** Throws TracerError with codes such as `path_not_tracked` or `bad_revision`. */
export type BlameFile = (repo: string, path: string, options: { rev?: string }) => Promise<BlameResult>;
