// The one place where the viewer gets the blame module (src/attribution/blame.ts),
// loaded only when a blame page is first asked for.
import type { BlameFile } from './blame-source.js';

export async function loadBlameFile(env: NodeJS.ProcessEnv): Promise<BlameFile> {
  const { blameFile } = await import('../attribution/blame.js');
  return async (where, path, options) => {
    const { report } = await blameFile({
      projectDir: where.projectDir,
      git: { cwd: where.repo, env },
      path,
      rev: options.rev,
    });
    return { path: report.path, rev: report.rev ?? 'HEAD', lines: report.lines };
  };
}
