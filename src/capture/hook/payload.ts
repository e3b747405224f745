import type { Readable } from 'node:stream';

/**
 * Agent payloads are small JSON objects, but a Claude Code PostToolUse carries the
 * whole file before and after an edit in `tool_response`: 8 MiB leaves room for
 * that while bounding what a hook holds in memory. Past it nothing more is kept.
 */
export const PAYLOAD_CAP_BYTES = 8 * 1024 * 1024;
/**
 * Past the cap the rest is still read and dropped, so the agent writing it never
 * hits a broken pipe; only a stream beyond this is cut off.
 */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

export type PayloadRead = { kind: 'ok'; text: string } | { kind: 'too_large'; bytes: number } | { kind: 'none' };

export async function readPayload(stdin: Readable & { isTTY?: boolean }, cap = PAYLOAD_CAP_BYTES): Promise<PayloadRead> {
  // Run by hand in a terminal: there is no payload to wait for.
  if (stdin.isTTY) return { kind: 'none' };
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    bytes += buffer.length;
    if (bytes <= cap) chunks.push(buffer);
    else if (bytes > DRAIN_LIMIT_BYTES) {
      stdin.destroy();
      break;
    }
  }
  if (bytes > cap) return { kind: 'too_large', bytes };
  if (bytes === 0) return { kind: 'none' };
  return { kind: 'ok', text: Buffer.concat(chunks, bytes).toString('utf8') };
}
