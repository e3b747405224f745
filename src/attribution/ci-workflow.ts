// The CI workflows of `tracer ci github` and `tracer ci gitlab`. Both run the
// same two shell scripts, so they are written (and tested) once:
// - on a push to the default branch (a merge), the merged branch's ledgers are
//   pulled from the tracer service, the pushed commits reconciled
//   (src/attribution/reconcile/), and the new ledgers pushed, with the git notes;
// - on a pull or merge request, `tracer stats <base>..<head> --markdown --cost`
//   (AI share, tokens, cost, landed lines and rework) is written to the job
//   summary and posted as a comment.
// The token comes from a secret, read through `--token-env`, never stored.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExitCode, TracerError } from '../core/errors.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { ensureDirSync } from '../files/index.js';

export interface CiOptions {
  /** The tracer remote URL, `<base>/<org>/<project>`. */
  url: string;
  /** The secret (GitHub) or CI/CD variable (GitLab) holding the token. */
  secret: string;
  /** The shell command that puts `tracer` on PATH in the job. */
  install: string;
  /** The branch merges land on. */
  branch: string;
}

/**
 * Reconciles what a push to the default branch brought and sends it to the
 * service. Reads TRACER_URL, TRACER_TOKEN, TRACER_BEFORE (the branch before the
 * push; zeros or empty on a new branch) and TRACER_AFTER.
 */
export const MERGE_SCRIPT = `set -eu
tracer init --agents none --no-git-hooks >/dev/null
tracer remote add tracer "$TRACER_URL" --token-env TRACER_TOKEN --default >/dev/null
git fetch --quiet origin '+refs/notes/tracer:refs/notes/tracer' 2>/dev/null || true
# The branch's ledgers, from whoever pushed them; tracer pull reconciles what they explain.
tracer pull --quiet
# The pushed commits; a new branch (no "before") gets its newest 500.
range="$TRACER_AFTER"
if [ -n "\${TRACER_BEFORE:-}" ] && git cat-file -e "$TRACER_BEFORE^{commit}" 2>/dev/null; then range="$TRACER_BEFORE..$TRACER_AFTER"; fi
tracer reconcile "$range" --limit 500
tracer push --quiet
git push --quiet origin refs/notes/tracer 2>/dev/null || echo "tracer: could not push refs/notes/tracer (the job's token may lack write access); the ledgers are on the tracer service." >&2
`;

/**
 * The attribution of a pull request, as Markdown in tracer-stats.md. Reads
 * TRACER_URL, TRACER_TOKEN, TRACER_BASE and TRACER_HEAD.
 */
export const STATS_SCRIPT = `set -eu
tracer init --agents none --no-git-hooks >/dev/null
tracer remote add tracer "$TRACER_URL" --token-env TRACER_TOKEN --default >/dev/null
tracer pull --quiet
tracer stats "$TRACER_BASE..$TRACER_HEAD" --markdown --cost > tracer-stats.md
`;

export function githubWorkflow(options: CiOptions): string {
  const secret = `\${{ secrets.${options.secret} }}`;
  // Both jobs start alike: the whole history (reconcile and stats read it), Node, tracer.
  const steps = `    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: Install tracer
        run: ${options.install}
`;
  return `# Written by \`tracer ci github\`; run it again to update. See docs/attribution.md.
# Needs the repository secret ${options.secret}: a tracer token for ${options.url}.
name: tracer
on:
  push:
    branches: [${JSON.stringify(options.branch)}]
  pull_request:
permissions:
  contents: write
  pull-requests: write
jobs:
  reconcile:
    if: github.event_name == 'push'
    runs-on: ubuntu-latest
${steps}      - name: Reconcile the merged commits and push their ledgers
        env:
          TRACER_URL: ${JSON.stringify(options.url)}
          TRACER_TOKEN: ${secret}
          TRACER_BEFORE: \${{ github.event.before }}
          TRACER_AFTER: \${{ github.sha }}
        run: |
${indent(MERGE_SCRIPT, 10)}
  stats:
    # A pull request from a fork gets neither the secret nor a token that may comment: it is skipped.
    if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository
    runs-on: ubuntu-latest
${steps}      - name: Attribution of this pull request
        env:
          TRACER_URL: ${JSON.stringify(options.url)}
          TRACER_TOKEN: ${secret}
          TRACER_BASE: \${{ github.event.pull_request.base.sha }}
          TRACER_HEAD: \${{ github.event.pull_request.head.sha }}
        run: |
${indent(STATS_SCRIPT, 10)}
      - name: Job summary and comment
        env:
          GH_TOKEN: \${{ github.token }}
        run: |
          cat tracer-stats.md >> "$GITHUB_STEP_SUMMARY"
          gh pr comment \${{ github.event.pull_request.number }} --body-file tracer-stats.md --edit-last || gh pr comment \${{ github.event.pull_request.number }} --body-file tracer-stats.md
`;
}

export function gitlabWorkflow(options: CiOptions): string {
  return `# Written by \`tracer ci gitlab\`; run it again to update. See docs/attribution.md.
# Include it from .gitlab-ci.yml. Needs the CI/CD variables ${options.secret} (a tracer token
# for ${options.url}) and, for the merge-request note, TRACER_GITLAB_TOKEN (a project access
# token with the api scope; it also lets the job push refs/notes/tracer).
tracer:reconcile:
  image: node:20
  rules:
    - if: $CI_COMMIT_BRANCH == ${JSON.stringify(options.branch)} && $CI_PIPELINE_SOURCE == "push"
  variables:
    GIT_DEPTH: 0
    TRACER_URL: ${JSON.stringify(options.url)}
  script:
    - ${options.install}
    - export TRACER_TOKEN="$${options.secret}" TRACER_BEFORE="$CI_COMMIT_BEFORE_SHA" TRACER_AFTER="$CI_COMMIT_SHA"
    - git remote set-url origin "https://oauth2:\${TRACER_GITLAB_TOKEN:-$CI_JOB_TOKEN}@$CI_SERVER_HOST/$CI_PROJECT_PATH.git"
    - |
${indent(MERGE_SCRIPT, 6)}
tracer:stats:
  image: node:20
  # A merge request from a fork runs in the fork's project, without this project's variables: it is skipped.
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event" && $CI_MERGE_REQUEST_SOURCE_PROJECT_ID == $CI_MERGE_REQUEST_PROJECT_ID
  variables:
    GIT_DEPTH: 0
    TRACER_URL: ${JSON.stringify(options.url)}
  script:
    - ${options.install}
    - export TRACER_TOKEN="$${options.secret}" TRACER_BASE="$CI_MERGE_REQUEST_DIFF_BASE_SHA" TRACER_HEAD="$CI_COMMIT_SHA"
    - |
${indent(STATS_SCRIPT, 6)}
    - |
      if [ -n "\${TRACER_GITLAB_TOKEN:-}" ]; then
        node -e 'process.stdout.write(JSON.stringify({ body: require("fs").readFileSync("tracer-stats.md", "utf8") }))' > tracer-note.json
        curl --fail --silent --show-error --request POST --header "PRIVATE-TOKEN: $TRACER_GITLAB_TOKEN" --header "Content-Type: application/json" --data @tracer-note.json "$CI_API_V4_URL/projects/$CI_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes" >/dev/null
      fi
  artifacts:
    paths: [tracer-stats.md]
`;
}

function indent(script: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return script
    .trimEnd()
    .split('\n')
    .map((line) => (line === '' ? '' : pad + line))
    .join('\n');
}

export interface WrittenWorkflow {
  path: string;
  change: 'added' | 'updated' | 'unchanged';
}

/** Writes the workflow file; a file of the same name that tracer did not write is left alone unless `force`. */
export async function writeWorkflow(path: string, text: string, force: boolean): Promise<WrittenWorkflow> {
  const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (before === text) return { path, change: 'unchanged' };
  if (before !== undefined && !before.startsWith('# Written by `tracer ci') && !force) {
    throw new TracerError('workflow_exists', `${path} exists and was not written by tracer; move it away, or pass --force to replace it.`, {
      exitCode: ExitCode.usage,
    });
  }
  ensureDirSync(join(path, '..'));
  await writeFileAtomic(path, text);
  return { path, change: before === undefined ? 'added' : 'updated' };
}

export type CiHost = 'github' | 'gitlab';

export const WORKFLOW_PATHS: Record<CiHost, string> = { github: '.github/workflows/tracer.yml', gitlab: '.gitlab/tracer.yml' };

export interface CiRequest {
  host: CiHost;
  projectDir: string;
  worktree: string;
  git: { cwd: string; env: NodeJS.ProcessEnv };
  url?: string;
  secret: string;
  install?: string;
  branch?: string;
  version: string;
}

/** The options a workflow is written with: the flags, else the project's only (or `origin`) tracer remote and git's default branch. */
export async function resolveCiOptions(request: CiRequest): Promise<CiOptions> {
  const url = request.url ?? (await projectRemoteUrl(request.projectDir));
  if (url === undefined) {
    throw new TracerError(
      'no_remote',
      'The workflow needs the tracer service to send ledgers to; pass --url https://<service>/<org>/<project>, or add a remote first (tracer remote add).',
      { exitCode: ExitCode.usage },
    );
  }
  const { defaultBranch, shortRef } = await import('./git-read.js');
  const found = await defaultBranch(request.git);
  const branch = request.branch ?? (found === undefined ? 'main' : shortRef(found).replace(/^origin\//, ''));
  return { url, secret: request.secret, install: request.install ?? `npm install --global tracer@${request.version}`, branch };
}

async function projectRemoteUrl(projectDir: string): Promise<string | undefined> {
  const { readRemotes } = await import('../store/remotes.js');
  const { remotes } = await readRemotes(projectDir);
  const names = Object.keys(remotes);
  const name = names.includes('origin') ? 'origin' : names.length === 1 ? names[0] : undefined;
  return name === undefined ? undefined : remotes[name]!.url;
}
