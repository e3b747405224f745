import { ExitCode, TracerError } from '../../core/errors.js';
import type { Kernel } from '../../kernel/kernel.js';
import type { Project } from '../../store/project.js';
import { readRemotes } from '../../store/remotes.js';
import { getPath, type Setting } from '../../store/settings.js';
import { settingsFile } from './scope.js';

/** Writes one setting after the checks that need other files (a default remote must exist). */
export async function applySetting(kernel: Kernel, setting: Setting, project: () => Project, change: (config: Record<string, unknown>) => void): Promise<void> {
  const file = settingsFile(kernel, setting.scope, project);
  await file.update((config) => {
    change(config);
  });
  if (setting.key === 'remote.default') {
    const chosen = getPath(await file.read(), setting.path);
    if (typeof chosen === 'string') {
      const remotes = await readRemotes(project().dir);
      if (!remotes.remotes[chosen]) {
        await file.update((config) => void delete (config.remote as Record<string, unknown> | undefined)?.default);
        const known = Object.keys(remotes.remotes);
        throw new TracerError('remote_not_found', `There is no remote named "${chosen}"${known.length ? `; known remotes: ${known.join(', ')}` : '; add it first with tracer remote add'}.`, {
          exitCode: ExitCode.usage,
        });
      }
    }
  }
}
