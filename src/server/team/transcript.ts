// One page of a transcript kept as a blob on the service, read from a cursor
// as the local viewer reads its snapshot file (same cursor, same entries,
// through the agent's transcript format): a large transcript is never read
// whole, and reading stops as soon as the page is full. The service runs no
// user's plugins: the built-in agents' readers are the ones it knows.
import type { Readable } from 'node:stream';
import { TracerError } from '../../core/errors.js';
import { transcriptFormat } from '../../transcript/agents.js';
import { streamSource } from '../../transcript/source.js';
import type { TranscriptPage } from '../../viewer/data-source.js';
import { transcriptPage as readPage } from '../../viewer/transcript-page.js';

export async function transcriptPage(
  open: (start: number) => Promise<{ size: number; stream: Readable } | undefined>,
  agent: string | undefined,
  cursor: string | undefined,
  limit: number,
): Promise<TranscriptPage> {
  const first = await open(0);
  if (!first) throw new TracerError('transcript_missing', 'The transcript named by this session is no longer on the service.');
  // The size is all the first stream was opened for: each read opens its own from where it starts.
  first.stream.destroy();
  const source = streamSource(first.size, async (start) => (await open(start))?.stream);
  const format = agent === undefined ? undefined : await transcriptFormat(agent);
  return readPage(source, format, cursor, limit);
}
