import { Command, Option } from 'clipanion';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { TracerCommand } from '../cli/tracer-command.js';
import { ExitCode, TracerError } from '../core/errors.js';
import { PROJECT_STATE_FILES } from '../store/home.js';
import { errnoCode, remove, unwritable } from '../files/index.js';
import { SENT_AS_FILE } from '../engine/sent-as.js';

/**
 * Cursors and settings: losing them costs a re-scan on the next push (the service
 * dedups by content id), never data. remotes.json is not among them: it is the
 * user's bindings, removed only by `tracer remote remove`.
 */
const RESETTABLE_STATE = [
  PROJECT_STATE_FILES.syncState,
  PROJECT_STATE_FILES.syncStateHead,
  PROJECT_STATE_FILES.sessionState,
  PROJECT_STATE_FILES.attributionState,
  PROJECT_STATE_FILES.config,
];

export class ResetCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['reset']];
  static override usage = Command.Usage({
    category: 'Project',
    description: "Reset this project's cursors and settings",
    details: `
      Removes \`sync-state.json\` (with its cache \`sync-state.head.json\`), \`session-state.json\`, \`attribution-state.json\` and \`project-config.json\` of the current project, so the next push re-scans everything (the service ignores rows it already holds) and every setting is back to its default. \`remotes.json\` and stored tokens are kept.

      Trace data is removed only with \`--data\`, and only after a confirmation: \`--yes\`, or answering y at the prompt when run in a terminal. \`--data\` removes the local files of every enabled artifact family, and \`cache/\` (token usage and costs derived from them). Each removed path is printed; \`--dry-run\` prints what would be removed and changes nothing.
    `,
    examples: [
      ['Reset cursors and settings', '$0 reset'],
      ['See what a full reset would remove', '$0 reset --data --dry-run'],
      ['Also delete the local trace data, without asking', '$0 reset --data --yes'],
    ],
  });

  data = Option.Boolean('--data', false, {
    description: 'Also delete the local trace data of this project (needs --yes, or a y at the prompt)',
  });
  yes = Option.Boolean('--yes,-y', false, { description: 'Confirm --data without asking' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'Print what would be removed and remove nothing' });

  async run() {
    const project = this.project();
    const candidates: string[] = [...RESETTABLE_STATE];
    // The families' own files are the plugins' to name; a plugin list that does not load must not stop a reset.
    if (this.data) {
      for (const family of (await this.kernel({ builtinsIfBroken: true })).families) candidates.push(...family.storage);
      // Which stored record a pushed copy stands for (a redacted one): it goes with the records, never before them.
      candidates.push(SENT_AS_FILE);
      // What was derived from that data goes with it.
      candidates.push(PROJECT_STATE_FILES.cache);
    }
    const present = await existing(candidates.map((name) => join(project.dir, name)));

    if (this.dryRun) {
      if (present.length === 0) this.print('Nothing to remove.');
      for (const path of present) this.print(`would remove ${path}`);
      return;
    }
    if (this.data && !this.yes && !(await this.confirm(project.dir))) {
      this.print('Nothing removed.');
      return ExitCode.failure;
    }
    if (present.length === 0) {
      this.print('Nothing to remove.');
      return;
    }
    for (const path of present) {
      try {
        await remove(path);
      } catch (error) {
        throw unwritable(path, error);
      }
      this.print(`removed ${path}`);
    }
  }

  /** Asks y/N on a terminal; anywhere else (scripts, hooks) there is nobody to ask, so it refuses. */
  private async confirm(projectDir: string): Promise<boolean> {
    const { stdin, stderr } = this.context;
    if (!(stdin as NodeJS.ReadStream).isTTY) {
      throw new TracerError(
        'confirmation_required',
        'reset --data deletes the trace data of this project and there is no terminal to confirm it; add --yes to confirm, or --dry-run to see what would go.',
        {
          exitCode: ExitCode.usage,
        },
      );
    }
    const { createInterface } = await import('node:readline/promises');
    const prompt = createInterface({ input: stdin, output: stderr });
    try {
      const answer = await prompt.question(`Delete the local trace data in ${projectDir}? [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      prompt.close();
    }
  }
}

async function existing(paths: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    try {
      await lstat(path);
      found.push(path);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') throw unwritable(path, error);
    }
  }
  return found;
}
