import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, runTracer, tempDir } from '../helpers/cli.js';
import { startService, stopAllServices } from '../helpers/service.js';
import { gitIn, ledgerOf, note } from '../capture/ledger-helpers.js';
import { MERGE_SCRIPT, STATS_SCRIPT } from '../../src/attribution/ci-workflow.js';
import { pullRequestRepo, squashOnService, teammate } from './reconcile-fixture.js';

test.after(async () => {
  await stopAllServices();
  cleanup();
});

/** A folder whose `tracer` runs this checkout's build, as the workflow's install step would provide. */
function tracerOnPath(): string {
  const dir = tempDir('tracer-path-');
  writeFileSync(join(dir, 'tracer'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(dir, 'tracer'), 0o755);
  return dir;
}

/**
 * Runs a workflow script the way a CI job does: a fresh checkout, a fresh home,
 * the variables the workflow sets. Asynchronous: the service answers from this process.
 */
function runJob(
  script: string,
  checkout: string,
  variables: Record<string, string>,
): Promise<{ status: number; stdout: string; stderr: string }> {
  const env = {
    ...cleanEnv(),
    PATH: `${tracerOnPath()}:${process.env.PATH}`,
    TRACER_HOME: join(tempDir('tracer-ci-home-'), 'home'),
    NO_COLOR: '1',
    GIT_AUTHOR_NAME: 'CI',
    GIT_AUTHOR_EMAIL: 'ci@example.com',
    GIT_COMMITTER_NAME: 'CI',
    GIT_COMMITTER_EMAIL: 'ci@example.com',
    ...variables,
  };
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd: checkout, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

test('the workflows run the shared scripts; a file tracer did not write is kept unless --force', async () => {
  const pr = await pullRequestRepo();
  const url = 'https://traces.example.com/acme/tools';
  const written = await runTracer(['ci', 'github', '--url', url], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(written.code, 0, written.stderr);
  assert.match(written.stdout, /Wrote \.github\/workflows\/tracer\.yml/);
  const workflow = readFileSync(join(pr.a.repo, '.github/workflows/tracer.yml'), 'utf8');
  const indented = (script: string, pad: number) =>
    script
      .trimEnd()
      .split('\n')
      .map((line) => (line === '' ? '' : ' '.repeat(pad) + line))
      .join('\n');
  assert.ok(workflow.includes(indented(MERGE_SCRIPT, 10)), 'the merge job runs MERGE_SCRIPT');
  assert.ok(workflow.includes(indented(STATS_SCRIPT, 10)), 'the pull-request job runs STATS_SCRIPT');
  assert.match(workflow, /TRACER_TOKEN: \$\{\{ secrets\.TRACER_TOKEN \}\}/);
  assert.match(workflow, /branches: \["main"\]/);
  const again = await runTracer(['ci', 'github', '--url', url], { cwd: pr.a.repo, home: pr.a.home });
  assert.match(again.stdout, /Unchanged/);

  const gitlab = await runTracer(['ci', 'gitlab', '--url', url, '--secret', 'ACME_TOKEN', '--print'], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(gitlab.code, 0, gitlab.stderr);
  assert.ok(gitlab.stdout.includes(indented(MERGE_SCRIPT, 6)) && gitlab.stdout.includes(indented(STATS_SCRIPT, 6)));
  assert.match(gitlab.stdout, /TRACER_TOKEN="\$ACME_TOKEN"/);
  assert.not.ok(existsSync(join(pr.a.repo, '.gitlab')), '--print writes nothing');

  mkdirSync(join(pr.a.repo, '.gitlab'));
  writeFileSync(join(pr.a.repo, '.gitlab/tracer.yml'), 'mine: true\n');
  const refused = await runTracer(['ci', 'gitlab', '--url', url], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(refused.code, 2);
  assert.match(refused.stderr, /workflow_exists/);
  assert.is(readFileSync(join(pr.a.repo, '.gitlab/tracer.yml'), 'utf8'), 'mine: true\n');
  const noUrl = await runTracer(['ci', 'github', '--print'], { cwd: pr.a.repo, home: pr.a.home });
  assert.match(noUrl.stderr, /no_remote/);
});

test('the merge job, run as a script against a bare repository and a real service, reconciles and pushes ledgers and notes', async () => {
  const service = await startService();
  await service.createProject('acme', 'tools');
  const token = await service.createToken({ org: 'acme', project: 'tools' });
  const url = `${service.url}/acme/tools`;
  const pr = await pullRequestRepo();
  assert.is((await runTracer(['remote', 'add', 'origin', url, '--token', token], { cwd: pr.a.repo, home: pr.a.home })).code, 0);
  assert.is((await runTracer(['push'], { cwd: pr.a.repo, home: pr.a.home })).code, 0);

  // The pull-request job, on the branch before it is merged.
  const prCheckout = join(tempDir('tracer-ci-'), 'checkout');
  gitIn(tempDir(), ['clone', '-q', `file://${pr.origin}`, prCheckout]);
  const stats = await runJob(STATS_SCRIPT, prCheckout, {
    TRACER_URL: url,
    TRACER_TOKEN: token,
    TRACER_BASE: pr.base,
    TRACER_HEAD: pr.agentTwo,
  });
  assert.is(stats.status, 0, stats.stderr);
  const markdown = readFileSync(join(prCheckout, 'tracer-stats.md'), 'utf8');
  assert.match(markdown, /\|/, 'a Markdown table');
  assert.match(markdown, /claude-code/);

  const before = gitIn(pr.origin, ['rev-parse', 'main']);
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  const checkout = join(tempDir('tracer-ci-'), 'checkout');
  gitIn(tempDir(), ['clone', '-q', `file://${pr.origin}`, checkout]);
  const job = await runJob(MERGE_SCRIPT, checkout, { TRACER_URL: url, TRACER_TOKEN: token, TRACER_BEFORE: before, TRACER_AFTER: squash });
  assert.is(job.status, 0, `${job.stdout}\n${job.stderr}`);
  assert.not.match(job.stdout + job.stderr, new RegExp(token), 'the token is never printed');

  const record = note(pr.origin, squash);
  assert.ok(record, 'the note reached the repository');
  // A teammate who only pulls from the service gets the same ledger the job wrote.
  const b = teammate(pr.origin, pr.a);
  assert.is((await runTracer(['remote', 'add', 'origin', url, '--token', token], { cwd: b.repo, home: b.home })).code, 0);
  assert.is((await runTracer(['pull'], { cwd: b.repo, home: b.home })).code, 0);
  assert.is(`${JSON.stringify(ledgerOf(b, squash).record)}\n`, record);
});

test.run();
