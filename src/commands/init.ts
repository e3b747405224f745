import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';
import { PRIVATE_DIR_MODE } from '../store/home.js';
import { findGit } from '../store/git.js';
import { registerProject, resolveProject } from '../store/project.js';
import { ensureDir, unwritable } from '../files/index.js';
import { parseAgentList } from '../capture/install/agents.js';
import { applyInstall, planInstall, uninstall, type InstallOptions, type InstallRow } from '../capture/install/installer.js';

export class InitCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['init']];
  static override usage = Command.Usage({
    category: 'Project',
    description: 'Start recording for this git repository: project anchor, agent hooks, git hooks',
    details: `
      Writes the project anchor \`<git-common-dir>/tracer-id\` (one line, shared by every worktree of the repository) and creates the project folder under \`$TRACER_HOME/projects/\`.

      Then installs the capture hooks. Each agent is a plugin (\`tracer plugins\` lists them): without \`--agents\`, Claude Code (\`.claude/settings.json\`), Cursor (\`.cursor/hooks.json\`) and Codex CLI (\`.codex/hooks.json\`); \`--agents\` names others: \`gemini\` (\`.gemini/settings.json\`), \`copilot\` (\`.github/hooks/tracer.json\`), \`droid\` (\`.factory/hooks.json\`), \`qwen\` (\`.qwen/settings.json\`), \`windsurf\` (\`.windsurf/hooks.json\`), \`cline\` (scripts in \`.clinerules/hooks/\`), \`goose\` (the plugin \`.agents/plugins/tracer/\`), \`kiro\` (\`.kiro/hooks/tracer.json\`), \`opencode\` (\`.opencode/plugins/tracer.js\`), or \`all\`. The agents run \`tracer hook <agent> <event>\`; git's \`post-commit\`, \`post-rewrite\` and \`post-merge\` spool what git said and return (\`tracer hook --fold\` makes the ledgers in the background, as \`tracer commit-link\`, \`tracer rewrite-ledger\` and \`tracer reconcile --post-merge\` would; every command that reads them folds first), in the folder git uses for hooks (\`core.hooksPath\` when set). Existing settings are merged, never replaced; an existing git hook is kept as \`<hook>.pre-tracer\` and still runs first, with its exit status passed on. The hooks call this tracer by absolute path, so agents started outside your shell find it too; run init again after moving tracer or changing node.

      Running it again changes nothing. \`--uninstall\` removes exactly what init added (the anchor and recorded data stay). \`--notes\` also makes \`git fetch\` bring the ledger notes (\`refs/notes/tracer\`) from every remote, or only from \`--notes=<remote>\`.
    `,
    examples: [
      ['Initialize the repository you are in', '$0 init'],
      ['Only Claude Code and Cursor, no git hooks', '$0 init --agents claude-code,cursor --no-git-hooks'],
      ['Gemini CLI and GitHub Copilot CLI too', '$0 init --agents claude-code,gemini,copilot'],
      ['Hook Claude Code for every repository (~/.claude/settings.json)', '$0 init --global --agents claude-code'],
      ['Also fetch ledger notes from origin', '$0 init --notes=origin'],
      ['Remove the hooks init installed', '$0 init --uninstall'],
    ],
  });

  agents = Option.String('--agents', {
    description:
      'Agents to hook: a comma-separated list of agent ids (tracer plugins lists them), or all, or none; default claude-code,cursor,codex',
  });
  global = Option.Boolean('--global', false, {
    description: "Install the agent hooks in the user's settings ($HOME/.claude, .cursor, .codex) instead of the repository",
  });
  gitHooks = Option.Boolean('--git-hooks', true, {
    description: 'Install the git post-commit and post-rewrite hooks (--no-git-hooks to skip)',
  });
  notes = Option.String('--notes', false, {
    tolerateBoolean: true,
    description: 'Add the refs/notes/tracer fetch refspec to every git remote, or to --notes=<remote>',
  });
  uninstall = Option.Boolean('--uninstall', false, {
    description: 'Remove the hooks and settings entries that init added, and nothing else',
  });

  async run() {
    const { cwd, env, home } = this.context;
    // Agents are plugins: the kernel knows which are enabled.
    const agents = parseAgentList(this.agents, await (await this.kernel()).loadAgents());
    const git = findGit(cwd, env);
    // Outside a repository only the user-wide agent hooks make sense; resolveProject says why otherwise.
    if (!git && !this.global) resolveProject({ cwd, home, env });
    const options: InstallOptions = { home, env, git, agents, global: this.global, gitHooks: this.gitHooks, notes: this.notes };

    if (this.uninstall) {
      const rows = await uninstall({ ...options, notes: true });
      this.print('Removed what tracer init installed:');
      this.printRows(rows);
      if (git) this.print('The project anchor and its recorded data stay; tracer reset deals with those.');
      return;
    }

    const plan = await planInstall(options);
    if (git) await this.initProject();
    this.print('Hooks:');
    this.printRows(await applyInstall(plan, options));
    for (const agent of agents) {
      const planned = plan.agentPlans.some((agentPlan) => agentPlan.agent.id === agent.id);
      if (!planned && this.global)
        this.print(
          `${agent.title} (${agent.id}) has no user-wide hooks tracer installs; run tracer init --agents ${agent.id} in each repository.`,
        );
      else if (agent.installNote) this.print(`Note for ${agent.id}: ${agent.installNote}`);
    }
  }

  private async initProject(): Promise<void> {
    const { cwd, home, env } = this.context;
    const project = resolveProject({ cwd, home, env, create: true });
    try {
      await ensureDir(project.dir, PRIVATE_DIR_MODE);
    } catch (error) {
      throw unwritable(project.dir, error);
    }
    await registerProject(home, project);
    this.print(project.created ? `Initialized tracer project ${project.id}` : `Already initialized: tracer project ${project.id}`);
    this.print(`  repository: ${project.git.worktree}`);
    this.print(`  anchor:     ${project.anchor}`);
    this.print(`  data:       ${project.dir}`);
    if (project.created) this.print('Next: tracer remote add <name> <url> --token <TOKEN>');
  }

  private printRows(rows: readonly InstallRow[]): void {
    if (rows.length === 0) this.print('  (nothing selected)');
    const width = Math.max(0, ...rows.map((row) => row.what.length));
    const pathWidth = Math.max(0, ...rows.map((row) => row.path.length));
    for (const row of rows) this.print(`  ${row.what.padEnd(width)}  ${row.path.padEnd(pathWidth)}  ${row.change}`);
  }
}
