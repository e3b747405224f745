import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN, cleanEnv, cleanup, runMain, tempDir } from '../helpers/cli.js';
import { spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { gitIn, ledgerOf, note } from '../capture/ledger-helpers.js';
import { pullRequestRepo, squashOnService, teammate, type PullRequestRepo } from './reconcile-fixture.js';
import { githubExpressions, githubStep, gitlabJob, readWorkflowYaml } from './workflow-yaml.js';

/**
 * The workflows `tracer ci github` and `tracer ci gitlab` write, run as a CI
 * runner would: each step's script taken from the YAML, run by bash in a fresh
 * clone of a bare repository (the hosting service) with the variables the
 * runner sets, `tracer` on PATH, and a real `tracer serve` on 127.0.0.1.
 * `gh` and `curl` (the GitLab job's API call) are stubs that record what they
 * were asked to post.
 */
test.after(async () => {
  await stopAllServices();
  cleanup();
});

/** The install step's command in these workflows: tracer is already on the job's PATH. */
const INSTALL = 'command -v tracer >/dev/null';

interface Posted {
  tool: string;
  argv: string[];
  /** The file a `--body-file` or `--data @file` named, as it was when posted. */
  body: string | null;
  code: number;
}

/**
 * A folder for PATH: `tracer` runs this checkout's build; `gh` and `curl` record
 * each call in `posted.jsonl`. Like the real gh, `gh pr comment --edit-last`
 * fails while the pull request has no comment of the job's user.
 */
function jobPath(): { dir: string; posted: () => Posted[] } {
  const dir = tempDir('tracer-ci-path-');
  const log = join(dir, 'posted.jsonl');
  const stub = join(dir, 'stub.mjs');
  writeFileSync(
    stub,
    `import { appendFileSync, existsSync, readFileSync } from 'node:fs';
const [tool, ...argv] = process.argv.slice(2);
const log = ${JSON.stringify(log)};
const earlier = existsSync(log) ? readFileSync(log, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
const named = (flag) => { const at = argv.indexOf(flag); return at === -1 ? undefined : argv[at + 1]; };
const file = tool === 'gh' ? named('--body-file') : named('--data')?.replace(/^@/, '');
const body = file === undefined ? null : readFileSync(file, 'utf8');
const commented = earlier.some((call) => call.tool === 'gh' && call.code === 0);
const code = tool === 'gh' && argv.includes('--edit-last') && !commented ? 1 : 0;
appendFileSync(log, JSON.stringify({ tool, argv, body, code }) + '\\n');
if (code !== 0) process.stderr.write('no comments found for current user\\n');
process.exit(code);
`,
  );
  const script = (command: string) => `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${command} "$@"\n`;
  writeFileSync(join(dir, 'tracer'), script(JSON.stringify(BIN)));
  writeFileSync(join(dir, 'gh'), script(`${JSON.stringify(stub)} gh`));
  writeFileSync(join(dir, 'curl'), script(`${JSON.stringify(stub)} curl`));
  for (const name of ['tracer', 'gh', 'curl']) chmodSync(join(dir, name), 0o755);
  const posted = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Posted)
      : [];
  return { dir, posted };
}

interface Job {
  run(script: string, variables: Record<string, string>): Promise<{ status: number; output: string }>;
}

/** A fresh clone of the hosting service's repository and a fresh home, as every CI job starts with. */
function job(origin: string, path: string, extra: Record<string, string> = {}): { checkout: string } & Job {
  const checkout = join(tempDir('tracer-ci-'), 'checkout');
  gitIn(tempDir(), ['clone', '-q', `file://${origin}`, checkout]);
  const home = join(tempDir('tracer-ci-home-'), 'home');
  return {
    checkout,
    run: (script, variables) =>
      new Promise((resolve, reject) => {
        const env = {
          ...cleanEnv(),
          PATH: `${path}:${process.env.PATH}`,
          TRACER_HOME: home,
          NO_COLOR: '1',
          GIT_AUTHOR_NAME: 'CI',
          GIT_AUTHOR_EMAIL: 'ci@example.com',
          GIT_COMMITTER_NAME: 'CI',
          GIT_COMMITTER_EMAIL: 'ci@example.com',
          ...extra,
          ...variables,
        };
        // GitHub's and GitLab's runners both run bash with -e and pipefail.
        const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd: checkout, env });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ status: code ?? -1, output }));
      }),
  };
}

async function serviceWithBranch(): Promise<{ service: ServiceHandle; token: string; url: string; pr: PullRequestRepo }> {
  const service = await spawnService();
  await service.createProject('acme', 'tools');
  const token = await service.createToken({ org: 'acme', project: 'tools' });
  const url = `${service.url}/acme/tools`;
  const pr = await pullRequestRepo();
  assert.is((await runMain(['remote', 'add', 'origin', url, '--token', token], { cwd: pr.a.repo, home: pr.a.home })).code, 0);
  const pushed = await runMain(['push'], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(pushed.code, 0, pushed.stderr);
  return { service, token, url, pr };
}

/** What the author's own clone says of the branch: the job must post exactly this. */
async function branchMarkdown(pr: PullRequestRepo): Promise<string> {
  const stats = await runMain(['stats', `${pr.base}..${pr.agentTwo}`, '--markdown'], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(stats.code, 0, stats.stderr);
  assert.match(stats.stdout, /\| claude-code \| 4 \|/);
  return stats.stdout;
}

/** After the merge job: the note is on the hosting service, and a teammate pulling from the tracer service gets the same ledger. */
async function assertPushed(origin: string, pr: PullRequestRepo, url: string, token: string, squash: string): Promise<void> {
  const record = note(origin, squash);
  assert.ok(record, 'the note reached the repository');
  const b = teammate(origin, pr.a);
  assert.is((await runMain(['remote', 'add', 'origin', url, '--token', token], { cwd: b.repo, home: b.home })).code, 0);
  // Only what the job pushed: the teammate's copy of A's ledgers has none for the squash.
  assert.is(ledgerOf(b, squash), undefined);
  const pulled = await runMain(['pull'], { cwd: b.repo, home: b.home });
  assert.is(pulled.code, 0, pulled.stderr);
  const ledger = ledgerOf(b, squash);
  assert.ok(ledger, 'the squash ledger reached the tracer service');
  assert.is(`${JSON.stringify(ledger.record)}\n`, record);
  assert.equal(ledger.record.metadata['dev.tracer'].lines, { ai: 7, human: 1 });
}

test('GitHub: the pull-request job comments the stats (then edits its comment); the push job reconciles the squash and pushes ledger and note', async () => {
  const { token, url, pr } = await serviceWithBranch();
  const written = await runMain(['ci', 'github', '--url', url, '--install', INSTALL], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(written.code, 0, written.stderr);
  const workflow = readWorkflowYaml(readFileSync(join(pr.a.repo, '.github/workflows/tracer.yml'), 'utf8'));
  const path = jobPath();
  const expressions = {
    'secrets.TRACER_TOKEN': token,
    'github.token': 'ghs_job_token',
    'github.event.pull_request.number': '7',
    'github.event.pull_request.base.sha': pr.base,
    'github.event.pull_request.head.sha': pr.agentTwo,
  };
  /** The steps of a job after the checkout and Node setup, each in its own shell as GitHub runs them. */
  const runSteps = async (ci: Job, name: string, steps: string[], values: Record<string, string>, extra: Record<string, string> = {}) => {
    for (const title of steps) {
      const step = githubStep(workflow, name, title);
      const env = Object.fromEntries(Object.entries(step.env).map(([key, value]) => [key, githubExpressions(value, values)]));
      const result = await ci.run(githubExpressions(step.run, values), { ...env, ...extra });
      assert.is(result.status, 0, `${title}: ${result.output}`);
      assert.not.ok(result.output.includes(token), 'the token is never printed');
    }
  };

  const expected = await branchMarkdown(pr);
  const prJob = job(pr.origin, path.dir);
  const summary = join(tempDir('tracer-ci-summary-'), 'summary.md');
  writeFileSync(summary, '');
  const statsSteps = ['Install tracer', 'Attribution of this pull request', 'Job summary and comment'];
  await runSteps(prJob, 'stats', statsSteps, expressions, { GITHUB_STEP_SUMMARY: summary });
  const comment = ['pr', 'comment', '7', '--body-file', 'tracer-stats.md'];
  assert.equal(
    path.posted().map(({ tool, argv, code }) => [tool, argv, code]),
    [
      ['gh', [...comment, '--edit-last'], 1],
      ['gh', comment, 0],
    ],
    'no comment yet: --edit-last fails and a new comment is posted',
  );
  assert.is(path.posted()[1]!.body, expected, 'the comment is tracer stats <base>..<head> --markdown');
  assert.is(readFileSync(summary, 'utf8'), expected, 'and so is the job summary');
  assert.ok(path.posted().every((call) => !JSON.stringify(call.argv).includes(token)));

  // A second push to the pull request: the job edits its comment instead of adding one.
  await runSteps(job(pr.origin, path.dir), 'stats', statsSteps, expressions, { GITHUB_STEP_SUMMARY: summary });
  assert.equal(path.posted().slice(2), [{ tool: 'gh', argv: [...comment, '--edit-last'], body: expected, code: 0 }]);

  const before = gitIn(pr.origin, ['rev-parse', 'main']);
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total (#7)');
  await runSteps(job(pr.origin, path.dir), 'reconcile', ['Install tracer', 'Reconcile the merged commits and push their ledgers'], {
    ...expressions,
    'github.event.before': before,
    'github.sha': squash,
  });
  await assertPushed(pr.origin, pr, url, token, squash);
});

test('GitLab: the merge-request job notes the stats through the API; the push job reconciles the squash and pushes ledger and note', async () => {
  const { token, url, pr } = await serviceWithBranch();
  // GitLab keeps a merge request's head as refs/merge-requests/<iid>/head.
  gitIn(pr.a.repo, ['push', '-q', 'origin', 'feature:refs/merge-requests/7/head']);
  const written = await runMain(['ci', 'gitlab', '--url', url, '--install', INSTALL, '--secret', 'ACME_TRACER_TOKEN'], {
    cwd: pr.a.repo,
    home: pr.a.home,
  });
  assert.is(written.code, 0, written.stderr);
  const file = readWorkflowYaml(readFileSync(join(pr.a.repo, '.gitlab/tracer.yml'), 'utf8'));
  const path = jobPath();
  // What every GitLab job has: the project's variables (the token is a masked one), and the runner's own.
  const runner = {
    ACME_TRACER_TOKEN: token,
    TRACER_GITLAB_TOKEN: 'glpat-project-token',
    CI_JOB_TOKEN: 'job-token',
    CI_API_V4_URL: 'https://gitlab.example.com/api/v4',
    CI_SERVER_HOST: 'gitlab.example.com',
    CI_PROJECT_ID: '42',
    CI_PROJECT_PATH: 'acme/tools',
  };
  const runJob = async (ci: Job, name: string, variables: Record<string, string>) => {
    const spec = gitlabJob(file, name);
    // GitLab runs a job's script items one after another in one shell.
    const result = await ci.run(spec.script.join('\n'), { ...runner, ...spec.variables, ...variables });
    assert.is(result.status, 0, `${name}: ${result.output}`);
    assert.not.ok(result.output.includes(token), 'the token is never printed');
  };

  const expected = await branchMarkdown(pr);
  const mrJob = job(pr.origin, path.dir);
  await runJob(mrJob, 'tracer:stats', {
    CI_PIPELINE_SOURCE: 'merge_request_event',
    CI_MERGE_REQUEST_IID: '7',
    CI_MERGE_REQUEST_DIFF_BASE_SHA: pr.base,
    CI_COMMIT_SHA: pr.agentTwo,
  });
  assert.is(
    readFileSync(join(mrJob.checkout, 'tracer-stats.md'), 'utf8'),
    expected,
    'the artifact is tracer stats <base>..<head> --markdown',
  );
  const posted = path.posted();
  assert.is(posted.length, 1);
  assert.equal(posted[0]!.argv.slice(-1), ['https://gitlab.example.com/api/v4/projects/42/merge_requests/7/notes']);
  assert.ok(posted[0]!.argv.includes('PRIVATE-TOKEN: glpat-project-token'));
  assert.equal(JSON.parse(posted[0]!.body!), { body: expected }, 'the note is the Markdown');

  const before = gitIn(pr.origin, ['rev-parse', 'main']);
  const squash = squashOnService(pr.origin, 'feature', 'Parse and total\n\nSee merge request acme/tools!7');
  gitIn(pr.origin, ['branch', '-D', 'feature']);
  // The job points origin at GitLab over https with a token; here that address leads to the bare repository.
  const https = 'https://oauth2:glpat-project-token@gitlab.example.com/acme/tools.git';
  const pushJob = job(pr.origin, path.dir, {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `url.file://${pr.origin}.insteadOf`,
    GIT_CONFIG_VALUE_0: https,
  });
  await runJob(pushJob, 'tracer:reconcile', { CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BEFORE_SHA: before, CI_COMMIT_SHA: squash });
  assert.is(gitIn(pushJob.checkout, ['remote', 'get-url', 'origin']), https);
  await assertPushed(pr.origin, pr, url, token, squash);
  assert.is(path.posted().length, 1, 'the push job posts nothing');
});

test.run();
