// The records of a transcript that is one JSON document rather than JSON lines
// (Cline's ui_messages.json, one array on one line; Gemini CLI's older chat
// file, `{"sessionId": ..., "messages": [...]}` pretty-printed), found by
// scanning bytes: the document is never parsed whole, only one element at a
// time, and an element over the cap is skipped without being held. The scan
// can start at any element's offset (a page cursor), in the state it names.
import type { TranscriptContainer } from '../core/transcript.js';

export type ScanState = Exclude<TranscriptContainer, 'lines'> | 'top';

export interface ScannedRecord {
  start: number;
  end: number;
  /** The record's JSON text; absent when it was over the cap (`tooLong`) or did not end (`torn`). */
  text?: string;
  problem?: 'too_long' | 'torn' | 'malformed';
  /** The container the scan is in after this record: where a cursor just past it resumes. */
  after: ScanState;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0xef || byte === 0xbb || byte === 0xbf;
}

type Phase =
  | { kind: 'expect' } // before an element, a member's key, or the document
  | { kind: 'key'; bytes: number[]; escaped: boolean } // inside a member's key
  | { kind: 'colon'; key: string } // after a key, before its value
  | { kind: 'value' } // inside a record's value
  | { kind: 'done' };

/**
 * Fed chunk by chunk; `push` returns the records completed by the chunk. In the
 * `object` state the members of a top-level object are records
 * (`{"member": value}`), except `member`, whose array's elements are.
 */
export class JsonScanner {
  private state: ScanState;
  private phase: Phase = { kind: 'expect' };
  /** The absolute offset of the chunk being pushed: `push` advances it past the chunk when done. */
  private position: number;
  private recordStart = 0;
  private parts: Buffer[] = [];
  private held = 0;
  private tooLong = false;
  private keyText = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;

  constructor(
    state: ScanState,
    offset: number,
    private readonly member: string | undefined,
    private readonly maxBytes: number,
  ) {
    this.state = state;
    this.position = offset;
  }

  get finished(): boolean {
    return this.phase.kind === 'done';
  }

  push(chunk: Buffer): ScannedRecord[] {
    const out: ScannedRecord[] = [];
    let i = 0;
    while (i < chunk.length && this.phase.kind !== 'done') {
      if (this.phase.kind === 'value') {
        const end = this.scanValue(chunk, i);
        if (end === -1) {
          this.hold(chunk.subarray(i));
          i = chunk.length;
          break;
        }
        this.hold(chunk.subarray(i, end));
        i = end;
        out.push(this.finishRecord(this.position + i));
        continue;
      }
      const byte = chunk[i]!;
      i += 1;
      this.step(byte, this.position + i - 1, out);
    }
    this.position += chunk.length;
    return out;
  }

  /** At the end of the bytes: a record still open was torn (a transcript copied while the agent wrote it). */
  end(): ScannedRecord[] {
    if (this.phase.kind === 'value' || this.phase.kind === 'key' || this.phase.kind === 'colon') {
      this.phase = { kind: 'done' };
      return [{ start: this.recordStart, end: this.position, problem: 'torn', after: this.state }];
    }
    return [];
  }

  private step(byte: number, at: number, out: ScannedRecord[]): void {
    const phase = this.phase;
    if (phase.kind === 'key') {
      if (phase.escaped) phase.escaped = false;
      else if (byte === BACKSLASH) phase.escaped = true;
      else if (byte === QUOTE) {
        // The key's bytes as written, escapes and all: JSON.parse reads them.
        this.keyText = `"${Buffer.from(phase.bytes).toString('utf8')}"`;
        let key: unknown;
        try {
          key = JSON.parse(this.keyText);
        } catch {
          this.fail(at, out);
          return;
        }
        this.phase = { kind: 'colon', key: key as string };
        return;
      }
      if (phase.bytes.length >= 4096) this.fail(at, out);
      else phase.bytes.push(byte);
      return;
    }
    if (isSpace(byte)) return;
    if (phase.kind === 'colon') {
      if (byte === COLON) return;
      if (phase.key === this.member && byte === OPEN_BRACKET && this.state === 'object') {
        this.state = 'member';
        this.phase = { kind: 'expect' };
        return;
      }
      this.startValue(byte, at, this.keyText);
      return;
    }
    // expect
    if (this.state === 'top') {
      if (byte === OPEN_BRACKET) this.state = 'array';
      else if (byte === OPEN_BRACE) this.state = 'object';
      else this.fail(at, out);
      return;
    }
    if (byte === COMMA) return;
    if (this.state === 'object') {
      if (byte === CLOSE_BRACE) this.phase = { kind: 'done' };
      else if (byte === QUOTE) {
        this.recordStart = at;
        this.phase = { kind: 'key', bytes: [], escaped: false };
      } else this.fail(at, out);
      return;
    }
    if (byte === CLOSE_BRACKET) {
      if (this.state === 'member') this.state = 'object';
      else this.phase = { kind: 'done' };
      return;
    }
    this.recordStart = at;
    this.startValue(byte, at, undefined);
  }

  /** The first byte of a record's value: `key`, for a document member, is wrapped around it as `{key: value}`. */
  private startValue(byte: number, at: number, key: string | undefined): void {
    if (key === undefined) this.recordStart = at;
    this.parts = key === undefined ? [] : [Buffer.from(`{${key}:`)];
    this.held = 0;
    this.tooLong = false;
    this.depth = byte === OPEN_BRACE || byte === OPEN_BRACKET ? 1 : 0;
    this.inString = byte === QUOTE;
    this.escaped = false;
    this.scalar = this.depth === 0 && !this.inString;
    this.phase = { kind: 'value' };
    this.hold(Buffer.from([byte]));
    if (key !== undefined) this.keyText = key;
    else this.keyText = '';
  }

  /** Where the value ends in `chunk` from `from` (the index just past it), or -1 when it goes on. */
  private scanValue(chunk: Buffer, from: number): number {
    let i = from;
    while (i < chunk.length) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          i += 1;
          continue;
        }
        const quote = chunk.indexOf(QUOTE, i);
        const backslash = chunk.indexOf(BACKSLASH, i);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          this.escaped = true;
          i = backslash + 1;
          continue;
        }
        if (quote === -1) return -1;
        this.inString = false;
        i = quote + 1;
        if (this.depth === 0 && !this.scalar) return i;
        continue;
      }
      const byte = chunk[i]!;
      if (this.scalar) {
        if (byte === COMMA || byte === CLOSE_BRACKET || byte === CLOSE_BRACE || isSpace(byte)) return i;
        i += 1;
        continue;
      }
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        this.depth -= 1;
        if (this.depth === 0) return i + 1;
      }
      i += 1;
    }
    return -1;
  }

  private hold(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.held += bytes.length;
    if (this.tooLong) return;
    if (this.held > this.maxBytes) {
      this.tooLong = true;
      this.parts = [];
      return;
    }
    this.parts.push(Buffer.from(bytes));
  }

  private finishRecord(end: number): ScannedRecord {
    this.phase = { kind: 'expect' };
    if (this.tooLong) return { start: this.recordStart, end, problem: 'too_long', after: this.state };
    if (this.keyText !== '') this.parts.push(Buffer.from('}'));
    const text = Buffer.concat(this.parts).toString('utf8');
    this.parts = [];
    return { start: this.recordStart, end, text, after: this.state };
  }

  /** A byte no JSON document has there: the rest cannot be told apart, so the scan stops. */
  private fail(at: number, out: ScannedRecord[]): void {
    out.push({ start: at, end: at + 1, problem: 'malformed', after: this.state });
    this.phase = { kind: 'done' };
  }
}
