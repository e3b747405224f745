import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withContentId } from '../../src/core/content-id.js';
import { seededRandom, traceRecord } from '../dataset.js';

/**
 * The viewer's data set (issue 15): traces in many sessions (100k in 2,000 at
 * full size), one ledger, commit link and summary per session, and an 8 MB
 * Claude Code transcript for the newest session, laid out as a project folder.
 */
export interface ViewerDatasetSize {
  traces: number;
  sessions: number;
  transcriptBytes: number;
}

export interface ViewerDataset {
  traces: number;
  sessions: number;
  bytes: number;
  /** The session whose transcript is the big one (the newest). */
  bigSession: string;
  transcriptBytes: number;
}

export async function writeViewerDataset(dir: string, size: ViewerDatasetSize): Promise<ViewerDataset> {
  mkdirSync(dir, { recursive: true });
  const random = seededRandom(17);
  const hex = (digits: number) => Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');
  const out = {
    traces: writer(join(dir, 'traces.jsonl')),
    ledgers: writer(join(dir, 'ledgers.jsonl')),
    links: writer(join(dir, 'commit-links.jsonl')),
    summaries: writer(join(dir, 'session-summaries.jsonl')),
  };
  const perSession = Math.ceil(size.traces / size.sessions);
  let conversation = '';
  for (let index = 0; index < size.traces; index += 1) {
    if (index % perSession === 0) conversation = `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
    const trace = traceRecord(index, random, conversation);
    await out.traces.write(trace);
    if (index % perSession !== perSession - 1 && index !== size.traces - 1) continue;
    const commit = hex(40);
    const ts = String(trace.ts);
    const url = `claude-code://session/${conversation}`;
    const ai = 20 + Math.floor(random() * 200);
    const ledger = withContentId<Record<string, unknown>>(
      {
        version: '0.1',
        timestamp: ts,
        ts,
        commit,
        vcs: { type: 'git', revision: commit },
        tool: { name: 'tracer' },
        trace_ids: [trace.id],
        files: [
          {
            path: 'src/server/routes.ts',
            contributor: { type: 'mixed' },
            conversations: [
              {
                url,
                contributor: { type: 'ai', model_id: 'claude-sonnet-4-5-20250929' },
                ranges: [{ start_line: 1, end_line: ai, content_hash: `sha256:${hex(64)}`, contributor: { type: 'ai' } }],
              },
              {
                contributor: { type: 'human' },
                ranges: [{ start_line: ai + 1, end_line: ai + 10, content_hash: `sha256:${hex(64)}`, contributor: { type: 'human' } }],
              },
            ],
          },
        ],
        metadata: { 'dev.tracer': { parents: [hex(40)], lines: { ai, human: 10 } } },
      },
      'sha',
    );
    await out.ledgers.write(ledger);
    await out.links.write(withContentId({ ts, commit, session_ids: [conversation], trace_ids: [trace.id], ledger_sha: ledger.sha }, 'id'));
    await out.summaries.write(
      withContentId(
        {
          ts,
          conversation_url: url,
          summary: `Reworked the routes (${index}): ${'details '.repeat(20)}`,
          agent: 'claude-code',
          conversation_id: conversation,
        },
        'id',
      ),
    );
  }
  const bytes = (await out.traces.close()) + (await out.ledgers.close()) + (await out.links.close()) + (await out.summaries.close());
  const transcript = claudeTranscript(conversation, size.transcriptBytes);
  const sha = createHash('sha256').update(transcript).digest('hex');
  mkdirSync(join(dir, 'conversations', sha.slice(0, 2)), { recursive: true });
  writeFileSync(join(dir, 'conversations', sha.slice(0, 2), sha), transcript);
  writeFileSync(join(dir, 'conversations', '_index.json'), JSON.stringify({ [conversation]: sha }));
  writeFileSync(
    join(dir, 'conversations.jsonl'),
    `${JSON.stringify({ conversation_id: conversation, content_sha256: sha, size: transcript.length, ts: '2024-06-01T00:00:00.000Z' })}\n`,
  );
  return { traces: size.traces, sessions: size.sessions, bytes, bigSession: conversation, transcriptBytes: transcript.length };
}

/** Prompts, answers, edits and their results, in Claude Code's line shapes. */
function claudeTranscript(sessionId: string, bytes: number): Buffer {
  const lines: string[] = [];
  let total = 0;
  for (let turn = 0; total < bytes; turn += 1) {
    const base = { sessionId, uuid: `u${turn}`, timestamp: new Date(Date.UTC(2024, 5, 1) + turn * 1000).toISOString() };
    const kind = turn % 4;
    const line =
      kind === 0
        ? {
            ...base,
            type: 'user',
            message: { role: 'user', content: `Request ${turn}: please change the handler so that ${'it validates input, '.repeat(10)}` },
          }
        : kind === 1
          ? {
              ...base,
              type: 'assistant',
              message: {
                id: `m${turn}`,
                role: 'assistant',
                model: 'claude-sonnet-4-5-20250929',
                content: [
                  {
                    type: 'text',
                    text: `Answer ${turn}:\n\n- step one\n- step two\n\n\`\`\`ts\n${'const value = compute();\n'.repeat(20)}\`\`\``,
                  },
                ],
              },
            }
          : kind === 2
            ? {
                ...base,
                type: 'assistant',
                message: {
                  id: `m${turn}`,
                  role: 'assistant',
                  content: [
                    {
                      type: 'tool_use',
                      id: `t${turn}`,
                      name: 'Edit',
                      input: {
                        file_path: '/repo/src/server/routes.ts',
                        old_string: 'const a = 1;\n'.repeat(15),
                        new_string: 'const a = 2;\n'.repeat(15),
                      },
                    },
                  ],
                },
              }
            : {
                ...base,
                type: 'user',
                message: {
                  role: 'user',
                  content: [
                    { type: 'tool_result', tool_use_id: `t${turn - 1}`, content: `The file has been updated. ${'ok '.repeat(200)}` },
                  ],
                },
              };
    const text = JSON.stringify(line);
    lines.push(text);
    total += Buffer.byteLength(text) + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function writer(path: string) {
  const stream = createWriteStream(path);
  let total = 0;
  return {
    async write(record: unknown): Promise<void> {
      const line = `${JSON.stringify(record)}\n`;
      total += Buffer.byteLength(line);
      if (!stream.write(line)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
    },
    close: () => new Promise<number>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve(total)))),
  };
}
