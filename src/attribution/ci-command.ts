// What `tracer ci github` and `tracer ci gitlab` do, apart from their help.
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { TracerContext } from '../cli/context.js';
import { VERSION } from '../core/version.js';
import type { Project } from '../store/project.js';
import { githubWorkflow, gitlabWorkflow, resolveCiOptions, WORKFLOW_PATHS, writeWorkflow, type CiHost } from './ci-workflow.js';

export interface CiFlags {
  url?: string;
  secret: string;
  install?: string;
  branch?: string;
  print: boolean;
  force: boolean;
}

export async function runCi(
  host: CiHost,
  flags: CiFlags,
  project: Project,
  context: TracerContext & { stdout: Writable },
): Promise<number> {
  const { cwd, env } = context;
  const options = await resolveCiOptions({
    host,
    projectDir: project.dir,
    worktree: project.git.worktree,
    git: { cwd, env },
    ...(flags.url === undefined ? {} : { url: flags.url }),
    secret: flags.secret,
    ...(flags.install === undefined ? {} : { install: flags.install }),
    ...(flags.branch === undefined ? {} : { branch: flags.branch }),
    version: VERSION,
  });
  const text = host === 'github' ? githubWorkflow(options) : gitlabWorkflow(options);
  if (flags.print) {
    context.stdout.write(text);
    return 0;
  }
  const written = await writeWorkflow(join(project.git.worktree, WORKFLOW_PATHS[host]), text, flags.force);
  const where = WORKFLOW_PATHS[host];
  context.stdout.write(`${written.change === 'unchanged' ? 'Unchanged' : written.change === 'added' ? 'Wrote' : 'Updated'} ${where}.\n`);
  const secretPlace = host === 'github' ? 'a repository secret' : 'a masked CI/CD variable';
  context.stdout.write(`Next: store a tracer token for ${options.url} as ${secretPlace} named ${options.secret}`);
  context.stdout.write(host === 'gitlab' ? `, include ${where} from .gitlab-ci.yml, and commit both.\n` : ', and commit the workflow.\n');
  return 0;
}
