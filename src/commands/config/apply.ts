import { ExitCode, TracerError } from '../../core/errors.js';
import { importPlugin } from '../../kernel/plugin-list.js';
import { projectConfigPath } from '../../store/config-files.js';
import type { Project } from '../../store/project.js';
import { readRemotes } from '../../store/remotes.js';
import { setPath, type Setting } from '../../store/settings.js';
import { settingsFile } from './scope.js';

/**
 * Writes one setting, after the checks that need other files. Checked first,
 * written second: a refused value leaves the file exactly as it was.
 */
export async function applySetting(home: string, setting: Setting, project: () => Project, value: unknown): Promise<void> {
  if (setting.scope === 'project' && setting.key === 'remote.default') await checkRemoteExists(project(), value);
  // The commands that use plugins boot the kernel from this list: an entry that does not load would lock the user out of them.
  if (setting.scope === 'project' && setting.key === 'plugins') await checkPluginsLoad(project(), value);
  await settingsFile(home, setting.scope, project).update((config) => setPath(config, setting.path, value));
}

async function checkRemoteExists(project: Project, chosen: unknown): Promise<void> {
  if (typeof chosen !== 'string') return;
  const remotes = await readRemotes(project.dir);
  if (remotes.remotes[chosen]) return;
  const known = Object.keys(remotes.remotes);
  throw new TracerError(
    'remote_not_found',
    `There is no remote named "${chosen}"; ${known.length ? `name one of ${known.join(', ')}, or ` : ''}add it first with tracer remote add ${chosen} <url>.`,
    {
      exitCode: ExitCode.usage,
    },
  );
}

async function checkPluginsLoad(project: Project, entries: unknown): Promise<void> {
  if (!Array.isArray(entries)) return;
  const file = projectConfigPath(project.dir);
  for (const entry of entries) {
    const spec = String(entry).trim();
    if (spec === '' || spec.startsWith('!')) continue;
    try {
      await importPlugin({ spec, source: 'project', file });
    } catch (error) {
      if (!(error instanceof TracerError)) throw error;
      throw new TracerError(
        'invalid_plugin',
        `${error.message.replace(/; fix or remove that entry\.$/, '')}; the plugins setting was not changed.`,
        {
          exitCode: ExitCode.usage,
        },
      );
    }
  }
}
