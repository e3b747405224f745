import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain, tempDir } from '../helpers/cli.js';
import { spawnService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { gitIn, ledgerOf, note } from '../capture/ledger-helpers.js';
import { pullRequestRepo, squashOnService, teammate, type PullRequestRepo } from './reconcile-fixture.js';
import { INSTALL, job, jobPath, type Job } from './ci-runner.js';
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
  const stats = await runMain(['stats', `${pr.base}..${pr.agentTwo}`, '--markdown', '--cost'], { cwd: pr.a.repo, home: pr.a.home });
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
  assert.is(path.posted()[1]!.body, expected, 'the comment is tracer stats <base>..<head> --markdown --cost');
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
    'the artifact is tracer stats <base>..<head> --markdown --cost',
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
