// Reading transcripts in tests as the viewers read them: through the agent's
// own format (its adapter's reader), from bytes in memory.
import { readFileSync } from 'node:fs';
import type { TranscriptFormat, TranscriptItem } from '../../src/core/transcript.js';
import { transcriptFormat } from '../../src/transcript/agents.js';
import { readItems } from '../../src/transcript/read.js';
import { bufferSource } from '../../src/transcript/source.js';
import type { TranscriptEntry } from '../../src/viewer/data-source.js';
import { entryOf } from '../../src/viewer/transcript-page.js';

export async function formatOf(agent: string): Promise<TranscriptFormat> {
  const format = await transcriptFormat(agent);
  if (!format) throw new Error(`no transcript format for ${agent}`);
  return format;
}

export async function itemsOf(agent: string, bytes: string | Buffer): Promise<TranscriptItem[]> {
  const items: TranscriptItem[] = [];
  for await (const item of readItems(bufferSource(bytes), await formatOf(agent))) items.push(item);
  return items;
}

/** A transcript file's entries, as the session page gets them. */
export async function fileEntries(agent: string, path: string): Promise<TranscriptEntry[]> {
  return (await itemsOf(agent, readFileSync(path))).map(entryOf);
}

/** The entries of records given as values, one JSON line each, the first on line `firstLine`. */
export async function recordEntries(agent: string, values: unknown[], firstLine = 1): Promise<TranscriptEntry[]> {
  const text = '\n'.repeat(firstLine - 1) + values.map((value) => JSON.stringify(value)).join('\n');
  return (await itemsOf(agent, text)).map(entryOf);
}
