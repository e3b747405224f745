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
  static override usesKernel = true;
  static override paths = [['init']];
  static override usage = Command.Usage({
    category: 'Project',
    description: 'Start recording for this git repository: project anchor, agent hooks, git hooks',
    details: `
      Writes the project anchor \`<git-common-dir>/tracer-id\` (one line, shared by every worktree of the repository) and creates the project folder under \`$TRACER_HOME/projects/\`.

      Then installs the capture hooks. Each agent is a plugin (\`tracer plugins\` lists them): without \`--agents\`, Claude Code (\`.claude/settings.json\`), Cursor (\`.cursor/hooks.json\`) and Codex CLI (\`.codex/hooks.json\`); \`--agents\` names others: \`gemini\` (\`.gemini/settings.json\`), \`copilot\` (\`.github/hooks/tracer.json\`), \`droid\` (\`.factory/hooks.json\`), \`qwen\` (\`.qwen/settings.json\`), \`windsurf\` (\`.windsurf/hooks.json\`), \`cline\` (scripts in \`.clinerules/hooks/\`), \`goose\` (the plugin \`.agents/plugins/tracer/\`), \`kiro\` (\`.kiro/hooks/tracer.json\`), \`opencode\` (\`.opencode/plugins/tracer.js\`), or \`all\`. The agents run \`tracer hook <agent> <event>\`; git's \`post-commit\`, \`post-rewrite\` and \`post-merge\` spool what git said and return (\`tracer hook --fold\` makes the ledgers in the background, as \`tracer commit-link\`, \`tracer rewrite-ledger\` and \`tracer reconcile --post-merge\` would; every command that reads them folds first), in the folder git uses for hooks (\`core.hooksPath\` when set). Existing settings are merged, never replaced; an existing git hook is kept as \`<hook>.pre-tracer\` and still runs first, with its exit status passed on. The hooks call this tracer by absolute path, so agents started outside your shell find it too; run init again after moving tracer or changing node.

      \`--mcp\` also registers \`tracer mcp\` (search, why, blame, show_commit, read_conversation, stats for agents) where each agent reads MCP servers: \`.mcp.json\` (Claude Code), \`.cursor/mcp.json\`, \`.gemini/settings.json\`, \`.qwen/settings.json\`, \`.kiro/settings/mcp.json\`, \`~/.codex/config.toml\` (\`[mcp_servers.tracer]\`) and \`~/.copilot/mcp-config.json\`; the user's other servers stay. Agents with no documented place are named, to add by hand.

      Running it again changes nothing. \`--uninstall\` removes exactly what init added (the anchor and recorded data stay). \`--notes\` also makes \`git fetch\` bring the ledger notes (\`refs/notes/tracer\`) from every remote, or only from \`--notes=<remote>\`.
    `,
    examples: [
      ['Initialize the repository you are in', '$0 init'],
      ['Only Claude Code and Cursor, no git hooks', '$0 init --agents claude-code,cursor --no-git-hooks'],
      ['Gemini CLI and GitHub Copilot CLI too', '$0 init --agents claude-code,gemini,copilot'],
      ['Hook Claude Code for every repository (~/.claude/settings.json)', '$0 init --global --agents claude-code'],
      ['Also fetch ledger notes from origin', '$0 init --notes=origin'],
      ['Also let Claude Code, Codex and Gemini ask the history (tracer mcp)', '$0 init --mcp --agents claude-code,codex,gemini'],
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
    description: 'Install the git post-commit, post-rewrite and post-merge hooks (--no-git-hooks to skip)',
  });
  notes = Option.String('--notes', false, {
    tolerateBoolean: true,
    description: 'Add the refs/notes/tracer fetch refspec to every git remote, or to --notes=<remote>',
  });
  mcp = Option.Boolean('--mcp', false, {
    description: "Also register tracer mcp (the history's MCP server) where each selected agent reads MCP servers",
  });
  uninstall = Option.Boolean('--uninstall', false, {
    description: 'Remove the hooks and settings entries that init added, and nothing else',
  });

  async run() {
    const { cwd, env, home } = this.context;
    // Agents are plugins: the kernel knows which are enabled. Uninstalling without --agents looks at every agent: it
    // removes what any earlier init added (--agents gemini, say), and finds nothing where there is nothing.
    const enabled = await (await this.kernel()).loadAgents();
    const agents = this.uninstall && this.agents === undefined ? [...enabled] : parseAgentList(this.agents, enabled);
    const git = findGit(cwd, env);
    // Outside a repository only the user-wide agent hooks make sense; resolveProject says why otherwise.
    if (!git && !this.global) resolveProject({ cwd, home, env });
    const options: InstallOptions = { home, env, git, agents, global: this.global, gitHooks: this.gitHooks, notes: this.notes };

    if (this.uninstall) {
      // The MCP entries go first: a file or folder the hooks share with them (.gemini/settings.json, .cursor/) is then
      // left as the hooks made it, and their removal takes it away once nothing else is in it.
      const mcpRows = await this.mcpServers(options, true);
      const rows = [...(await uninstall({ ...options, notes: true })), ...mcpRows];
      this.print('Removed what tracer init installed:');
      this.printRows(rows);
      if (git) this.print('The project anchor and its recorded data stay; tracer reset deals with those.');
      return;
    }

    const plan = await planInstall(options);
    // The MCP files are read and checked before anything is written, like the hooks' files.
    const mcp = this.mcp ? await this.planMcp(options, false) : undefined;
    if (git) await this.initProject();
    this.print('Hooks:');
    this.printRows(await applyInstall(plan, options));
    if (mcp) {
      this.print('MCP server (tracer mcp):');
      // Planned again: the hooks may just have written the same file (.gemini/settings.json).
      this.printRows(await this.applyMcp(await this.planMcp(options, false), options));
    }
    for (const agent of agents) {
      const planned = plan.agentPlans.some((agentPlan) => agentPlan.agent.id === agent.id);
      if (!planned && this.global)
        this.print(
          `${agent.title} (${agent.id}) has no user-wide hooks tracer installs; run tracer init --agents ${agent.id} in each repository.`,
        );
      else if (agent.installNote) this.print(`Note for ${agent.id}: ${agent.installNote}`);
    }
  }

  private async planMcp(options: InstallOptions, remove: boolean) {
    const { mcpTarget, planMcp } = await import('../capture/install/mcp-servers.js');
    const targets = options.agents.flatMap((agent) => {
      const target = mcpTarget(agent.id, { worktree: options.git?.worktree, global: options.global, env: options.env });
      return target ? [target] : [];
    });
    const skipped = options.agents.filter((agent) => !targets.some((target) => target.agent === agent.id));
    return { plans: planMcp(targets, remove), skipped };
  }

  private async applyMcp(mcp: Awaited<ReturnType<InitCommand['planMcp']>>, options: InstallOptions): Promise<InstallRow[]> {
    const { applyMcp } = await import('../capture/install/mcp-servers.js');
    await applyMcp(mcp.plans, options.home);
    const { relative } = await import('node:path');
    const shown = (path: string) => {
      const inside = options.git ? relative(options.git.worktree, path) : '..';
      return inside.startsWith('..') ? path : inside;
    };
    const rows: InstallRow[] = mcp.plans.map((plan) => ({ what: plan.target.agent, path: shown(plan.target.path), change: plan.change }));
    for (const agent of mcp.skipped)
      rows.push({ what: agent.id, path: '-', change: `not registered: add "tracer mcp" to ${agent.title}'s MCP servers by hand` });
    return rows;
  }

  /** --uninstall: the `tracer` MCP entry goes from every agent's file, whether or not --mcp was given (init may have added it earlier). */
  private async mcpServers(options: InstallOptions, remove: boolean): Promise<InstallRow[]> {
    const mcp = await this.planMcp(options, remove);
    const { applyMcp } = await import('../capture/install/mcp-servers.js');
    await applyMcp(mcp.plans, options.home);
    return mcp.plans
      .filter((plan) => plan.change !== 'absent')
      .map((plan) => ({ what: `${plan.target.agent} mcp`, path: plan.target.path, change: plan.change }));
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
