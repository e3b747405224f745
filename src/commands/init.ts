import { Command } from 'clipanion';
import { mkdir } from 'node:fs/promises';
import { TracerCommand } from '../cli/tracer-command.js';
import { PRIVATE_DIR_MODE } from '../store/home.js';
import { registerProject, resolveProject } from '../store/project.js';
import { unwritable } from '../store/state-file.js';

export class InitCommand extends TracerCommand {
  static override paths = [['init']];
  static override usage = Command.Usage({
    category: 'Project',
    description: 'Start recording for this git repository',
    details: `
      Writes the project anchor \`<git-common-dir>/tracer-id\` (one line, shared by every worktree of the repository) and creates the project folder under \`$TRACER_HOME/projects/\`. Nothing is written to the working tree.

      Running it again, from any subfolder or linked worktree, changes nothing and prints the same project.
    `,
    examples: [['Initialize the repository you are in', '$0 init']],
  });

  async run() {
    const { kernel } = this.context;
    const project = resolveProject({ cwd: kernel.context.cwd, home: kernel.context.home, env: kernel.context.env, create: true });
    try {
      await mkdir(project.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    } catch (error) {
      throw unwritable(project.dir, error);
    }
    await registerProject(kernel.context.home, project);
    this.print(project.created ? `Initialized tracer project ${project.id}` : `Already initialized: tracer project ${project.id}`);
    this.print(`  repository: ${project.git.worktree}`);
    this.print(`  anchor:     ${project.anchor}`);
    this.print(`  data:       ${project.dir}`);
    if (project.created) this.print('Next: tracer remote add <name> <url> --token <TOKEN>');
  }
}
