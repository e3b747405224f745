import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, runMain } from '../helpers/cli.js';
import { MERGE_SCRIPT, STATS_SCRIPT } from '../../src/attribution/ci-workflow.js';
import { pullRequestRepo } from './reconcile-fixture.js';
import { readWorkflowYaml } from './workflow-yaml.js';

test.after(cleanup);

// The jobs themselves, run from the YAML against a bare repository and a real service: ci-jobs.test.ts.

test('the workflows run the shared scripts; a file tracer did not write is kept unless --force', async () => {
  const pr = await pullRequestRepo();
  const url = 'https://traces.example.com/acme/tools';
  const written = await runMain(['ci', 'github', '--url', url], { cwd: pr.a.repo, home: pr.a.home });
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
  // A fork's pull request has no secret and a read-only token: its job must not run (and fail) at all.
  const jobs = readWorkflowYaml(workflow).jobs as Record<string, Record<string, string>>;
  assert.is(jobs.stats!.if, "github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository");
  assert.is(jobs.reconcile!.if, "github.event_name == 'push'");
  const again = await runMain(['ci', 'github', '--url', url], { cwd: pr.a.repo, home: pr.a.home });
  assert.match(again.stdout, /Unchanged/);

  const gitlab = await runMain(['ci', 'gitlab', '--url', url, '--secret', 'ACME_TOKEN', '--print'], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(gitlab.code, 0, gitlab.stderr);
  assert.ok(gitlab.stdout.includes(indented(MERGE_SCRIPT, 6)) && gitlab.stdout.includes(indented(STATS_SCRIPT, 6)));
  assert.match(gitlab.stdout, /TRACER_TOKEN="\$ACME_TOKEN"/);
  const rules = readWorkflowYaml(gitlab.stdout)['tracer:stats'] as Record<string, Array<Record<string, string>>>;
  assert.equal(rules.rules, [
    { if: '$CI_PIPELINE_SOURCE == "merge_request_event" && $CI_MERGE_REQUEST_SOURCE_PROJECT_ID == $CI_MERGE_REQUEST_PROJECT_ID' },
  ]);
  assert.not.ok(existsSync(join(pr.a.repo, '.gitlab')), '--print writes nothing');

  mkdirSync(join(pr.a.repo, '.gitlab'));
  writeFileSync(join(pr.a.repo, '.gitlab/tracer.yml'), 'mine: true\n');
  const refused = await runMain(['ci', 'gitlab', '--url', url], { cwd: pr.a.repo, home: pr.a.home });
  assert.is(refused.code, 2);
  assert.match(refused.stderr, /workflow_exists/);
  assert.is(readFileSync(join(pr.a.repo, '.gitlab/tracer.yml'), 'utf8'), 'mine: true\n');
  const noUrl = await runMain(['ci', 'github', '--print'], { cwd: pr.a.repo, home: pr.a.home });
  assert.match(noUrl.stderr, /no_remote/);
});

test.run();
