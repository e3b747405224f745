import { Command } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

export class McpCommand extends TracerCommand {
  static override paths = [['mcp']];
  /**
   * The spool is folded once, when the server starts (an agent starts it with
   * its session). Folding before every tool call would put a lock and a pass
   * over the spool in front of each answer; the hooks' own background folds
   * keep traces.jsonl current meanwhile, and each search brings its index level
   * with the store.
   */
  static override foldsSpoolFirst = true;
  static override usage = Command.Usage({
    category: 'Attribution',
    description: "Serve this project's history to agents over the Model Context Protocol (stdio)",
    details: `
      A Model Context Protocol server on stdin and stdout, for agents to ask the team's history before they edit. Tools: \`search\` (\`query\`), \`why\` (\`file\`, \`line\`), \`blame\` (\`file\`), \`show_commit\` (\`commit\`), \`read_conversation\` (\`conversation_id\`, \`turn\`) and \`stats\` (\`range\`). Each has a JSON schema; a call with bad arguments gets a tool error and the server goes on serving. Every answer is JSON of at most 60,000 characters (past that, its lists are shortened and it says so); a transcript window stops at 60 items and 512 KB read.

      It is read-only: it never writes the store (blame and show answer from the ledgers as they stand; \`tracer reconcile\` attributes squashed commits). Only the search index, a cache in the project's folder, is kept level with the store.

      \`tracer init --mcp\` registers it with the agents (\`.mcp.json\` for Claude Code, \`.cursor/mcp.json\`, \`~/.codex/config.toml\`, \`.gemini/settings.json\`, …). Agents start it themselves; there is nothing to run by hand.
    `,
    examples: [
      ['Register it with the agents of this repository', '$0 init --mcp --agents claude-code,codex,gemini'],
      ['What an agent runs', '$0 mcp'],
    ],
  });

  async run() {
    const project = this.project();
    const { cwd, home, env } = this.context;
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp(
      { id: project.id, dir: project.dir, git: { cwd, env }, formats: { home, cwd, env } },
      { stdin: this.context.stdin, stdout: this.context.stdout },
    );
  }
}
