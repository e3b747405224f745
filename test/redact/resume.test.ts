// Snapshots resume their redaction (src/redact/resume.ts): a transcript that
// only grew is redacted from where the last snapshot stopped, to the very bytes
// a redaction from scratch gives; a transcript rewritten, a line that was cut
// short, a rule added since: redacted again, whole.
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { snapshotTranscript } from '../../src/capture/hook/transcript.js';
import { captureRedaction } from '../../src/redact/capture.js';
import type { RedactionProblem } from '../../src/redact/types.js';
import { cleanup, tempDir } from '../helpers/cli.js';

test.after(cleanup);

const line = (text: string) => `${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`;
const GITHUB = (n: number) => `ghp_${String(n).repeat(36).slice(0, 36)}`;

function setup() {
  const root = tempDir('resume-');
  const home = join(root, 'home');
  const projectDir = join(home, 'projects', 'p');
  const repo = join(root, 'repo');
  mkdirSync(projectDir, { recursive: true });
  mkdirSync(repo);
  const transcript = join(root, 'transcript.jsonl');
  const problems: RedactionProblem[] = [];
  const snapshot = async (conversation: string) => {
    const redaction = await captureRedaction({ home, projectDir, root: repo, env: {} }, (problem) => problems.push(problem));
    const { content_sha256: sha } = await snapshotTranscript(
      projectDir,
      conversation,
      transcript,
      new Date().toISOString(),
      redaction.snapshot,
    );
    return readFileSync(join(projectDir, 'conversations', sha.slice(0, 2), sha), 'utf8');
  };
  const state = (conversation: string) =>
    JSON.parse(readFileSync(join(projectDir, 'conversations', `.redacted-${conversation}.json`), 'utf8'));
  return { home, projectDir, repo, transcript, problems, snapshot, state };
}

test('a transcript that grew is redacted from where the last snapshot stopped, to the same bytes as from scratch', async () => {
  const box = setup();
  writeFileSync(box.transcript, `${line('hello')}${line(`my token ${GITHUB(1)}`)}`);
  const first = await box.snapshot('c1');
  assert.is(box.state('c1').source_bytes, readFileSync(box.transcript).length);
  appendFileSync(box.transcript, `${line('more')}${line(`and ${GITHUB(2)}`)}`);
  const grown = await box.snapshot('c1');
  assert.ok(grown.startsWith(first), 'the earlier snapshot is its start');
  assert.not.ok(grown.includes(GITHUB(2)));
  assert.is(await box.snapshot('c-fresh'), grown, 'the same bytes as a redaction from scratch');
  assert.equal(box.problems, []);
});

test('a transcript rewritten before the point the last snapshot reached is redacted again, whole', async () => {
  const box = setup();
  writeFileSync(box.transcript, `${line('first version')}${line('second')}`);
  await box.snapshot('c1');
  writeFileSync(box.transcript, `${line(`rewritten with ${GITHUB(3)}`)}${line('second')}${line('third')}`);
  const again = await box.snapshot('c1');
  assert.not.ok(again.includes(GITHUB(3)));
  assert.match(again, /rewritten with \[REDACTED:github-token:[0-9a-f]{6}\]/);
});

test('a last line cut short is not counted: the next snapshot redacts it whole', async () => {
  const box = setup();
  const secret = GITHUB(4);
  const whole = line(`token ${secret}`);
  writeFileSync(box.transcript, `${line('start')}${whole.slice(0, 20)}`);
  await box.snapshot('c1');
  assert.is(box.state('c1').source_bytes, line('start').length);
  writeFileSync(box.transcript, `${line('start')}${whole}`);
  const done = await box.snapshot('c1');
  assert.not.ok(done.includes(secret));
  assert.is(done, await box.snapshot('c-fresh'));
});

test('a team rule added since the last snapshot redacts the earlier lines too', async () => {
  const box = setup();
  writeFileSync(box.transcript, `${line('badge ACME-12345678 in the log')}`);
  const before = await box.snapshot('c1');
  assert.ok(before.includes('ACME-12345678'));
  mkdirSync(join(box.repo, '.tracer'));
  writeFileSync(
    join(box.repo, '.tracer', 'redact.json'),
    JSON.stringify({ rules: [{ id: 'acme-badge', pattern: 'ACME-\\d{8}', samples: ['ACME-00000000'] }] }),
  );
  // A new process builds a new redactor: the cached one of this process knew no team rule.
  const { captureRedaction: fresh } = await import(`../../src/redact/capture.js?again=${Date.now()}`);
  const redaction = await fresh({ home: box.home, projectDir: box.projectDir, root: box.repo, env: {} }, () => undefined);
  appendFileSync(box.transcript, line('later'));
  const { content_sha256: sha } = await snapshotTranscript(
    box.projectDir,
    'c1',
    box.transcript,
    new Date().toISOString(),
    redaction.snapshot,
  );
  const after = readFileSync(join(box.projectDir, 'conversations', sha.slice(0, 2), sha), 'utf8');
  assert.not.ok(after.includes('ACME-12345678'));
  assert.match(after, /badge \[REDACTED:acme-badge:[0-9a-f]{6}\] in the log/);
});

test('the snapshot it resumes from gone (tracer redact --store, say): redacted again, whole', async () => {
  const box = setup();
  writeFileSync(box.transcript, line(`a ${GITHUB(5)}`));
  const first = await box.snapshot('c1');
  const { blob } = box.state('c1');
  rmSync(join(box.projectDir, 'conversations', blob.slice(0, 2), blob));
  appendFileSync(box.transcript, line('b'));
  const next = await box.snapshot('c1');
  assert.ok(next.startsWith(first));
  assert.not.ok(next.includes(GITHUB(5)));
});

test.run();
