// Runs CI jobs as a runner would: a fresh clone of the hosting service's bare
// repository and a fresh home for every job, `tracer` (this checkout's build)
// on PATH, and stub `gh` and `curl` that record what they were asked to post.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, cleanEnv, tempDir } from '../helpers/cli.js';
import { gitIn } from '../capture/ledger-helpers.js';

/** The install step's command in these workflows: tracer is already on the job's PATH. */
export const INSTALL = 'command -v tracer >/dev/null';

export interface Posted {
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
export function jobPath(): { dir: string; posted: () => Posted[] } {
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

export interface Job {
  run(script: string, variables: Record<string, string>): Promise<{ status: number; output: string }>;
}

/** A fresh clone of the hosting service's repository and a fresh home, as every CI job starts with. */
export function job(origin: string, path: string, extra: Record<string, string> = {}): { checkout: string } & Job {
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
