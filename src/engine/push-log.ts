// push-errors.log in the project folder: one JSON line per item left unsynced or
// fallback taken during a push (ts, remote, code, message, and family / item when
// known). Messages never carry a token. It only grows; delete it when read.
import { join } from 'node:path';
import { appendRecord } from '../store/jsonl.js';

export const PUSH_LOG_FILE = 'push-errors.log';

export interface PushLogLine {
  ts: string;
  remote: string;
  code: string;
  message: string;
  family?: string;
  item?: string;
}

export function appendPushLog(projectDir: string, line: Omit<PushLogLine, 'ts'>): void {
  appendRecord(join(projectDir, PUSH_LOG_FILE), { ts: new Date().toISOString(), ...line });
}
