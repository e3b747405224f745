// A Claude Code transcript (the agent's own JSON-lines format, as in
// test/fixtures/agents/claude-code/transcript.jsonl) in which the person pastes a
// secret of every format, the agent runs commands holding them, tools print them
// back, and the closing message echoes one; with every benign string of the
// corpus in it too. For the capture and the end-to-end tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benign, positives, transcriptLine, Values } from './corpus.js';

export const SESSION_ID = '7ee10dea-3895-4de7-b942-540c8b19b951';
const REAL_TRANSCRIPT = fileURLToPath(new URL('../fixtures/agents/claude-code/transcript.jsonl', import.meta.url));

export interface SecretTranscript {
  /** The transcript's bytes. */
  text: string;
  /** Every secret in it: none may appear anywhere tracer stores or shows. */
  secrets: string[];
  /** Benign strings (as the transcript holds them: JSON-encoded inside a line), each of which must survive byte for byte. */
  benign: string[];
  /** The closing message, which holds a secret: the summary. */
  closing: string;
}

export function secretTranscript(seed = 11): SecretTranscript {
  // A stream of its own: one seeded like the samples' would write their secrets again into ids and uuids.
  const values = new Values(seed + 7919);
  const samples = positives({ perRule: 1, seed }).filter((sample) => !sample.text.startsWith('{'));
  const lines = readFileSync(REAL_TRANSCRIPT, 'utf8').trimEnd().split('\n');
  const base = (type: string, message: object) =>
    JSON.stringify({
      parentUuid: values.uuid(),
      isSidechain: false,
      userType: 'external',
      cwd: '/home/user/projects/web',
      sessionId: SESSION_ID,
      version: '2.0.42',
      gitBranch: 'main',
      type,
      message,
      uuid: values.uuid(),
      timestamp: '2025-11-17T09:30:00.000Z',
    });
  const out = lines.slice(0, -1);
  for (const [index, sample] of samples.entries()) {
    const text = sample.text.trimEnd();
    if (index % 3 === 0) out.push(base('user', { role: 'user', content: `Here is what I have:\n${text}\nplease wire it up` }));
    else if (index % 3 === 1)
      out.push(
        base('assistant', {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: `toolu_${values.pick('ABCDEFabcdef0123456789', 24)}`,
              name: 'Bash',
              input: { command: text, description: 'Configure the service' },
            },
          ],
        }),
      );
    else out.push(transcriptLine(values, text));
  }
  const benignLines = benign({ seed }).slice(0, benign({ seed }).length / 2);
  for (const line of benignLines) out.push(transcriptLine(values, line));
  const github = samples.find((sample) => sample.rule === 'github-token')!.secret;
  const closing = `Done! The remote now uses ${github}; rotate it when you can.`;
  out.push(
    JSON.stringify({
      ...JSON.parse(lines.at(-1)!),
      message: { ...JSON.parse(lines.at(-1)!).message, content: [{ type: 'text', text: closing }] },
    }),
  );
  return {
    text: `${out.join('\n')}\n`,
    secrets: samples.map((sample) => sample.secret),
    benign: benignLines.map((line) => JSON.stringify(line).slice(1, -1)),
    closing,
  };
}
