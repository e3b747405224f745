import { Command, Option } from 'clipanion';
import { relative } from 'node:path';
import { TracerCommand } from '../../cli/tracer-command.js';
import { loadEnabledAgents } from '../../capture/hook/run-hook.js';
import { parseAgentList } from '../../capture/install/agents.js';
import { checkRuleName, removeRule, ruleAgents, worktreeFor } from '../../capture/install/rules.js';

export class RuleRemoveCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['rule', 'remove']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Remove a tracer rule from the agents',
    details:
      "Deletes `tracer-<name>` from each agent's rules folder (a rules folder left empty goes too). Rules that are not named `tracer-*` are never touched.",
    examples: [
      ['Remove the "context" rule', '$0 rule remove context'],
      ['Remove it for Codex only', '$0 rule remove context --agents codex'],
    ],
  });

  agents = Option.String('--agents', 'all', {
    description: 'Agents to remove it from: a comma-separated list of claude-code, cursor, codex (or all)',
  });
  name = Option.String({ name: 'name' });

  async run() {
    const { cwd, env } = this.context;
    const name = checkRuleName(this.name);
    const worktree = worktreeFor(cwd, env);
    const removed = removeRule(worktree, parseAgentList(this.agents, ruleAgents(await loadEnabledAgents(this.context))), name);
    this.print(`Removed rule ${name}:`);
    for (const path of removed) this.print(`  ${relative(worktree, path)}`);
  }
}
