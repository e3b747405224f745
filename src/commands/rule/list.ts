import { Command, Option } from 'clipanion';
import { relative } from 'node:path';
import { TracerCommand } from '../../cli/tracer-command.js';
import { loadEnabledAgents } from '../../capture/hook/run-hook.js';
import { listRules, ruleAgents, rulePath, worktreeFor } from '../../capture/install/rules.js';

export class RuleListCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['rule', 'list']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Show the tracer rules installed in this repository, per agent',
    details:
      'Lists every `tracer-<name>` rule file found in `.cursor/rules`, `.claude/rules` and `.codex/rules`, and which agents have it.',
    examples: [
      ['List the rules', '$0 rule list'],
      ['The same as JSON', '$0 rule list --json'],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print [{name, agents: [{agent, path}]}] as JSON' });

  async run() {
    const { cwd, env } = this.context;
    const worktree = worktreeFor(cwd, env);
    const rules = listRules(worktree, ruleAgents(await loadEnabledAgents(this.context)));
    if (this.json) {
      this.printJson(
        [...rules].map(([name, agents]) => ({
          name,
          agents: agents.map((agent) => ({ agent: agent.id, path: relative(worktree, rulePath(worktree, agent, name)) })),
        })),
      );
      return;
    }
    if (rules.size === 0) {
      this.print('No tracer rules installed here; add one with tracer rule add <name>.');
      return;
    }
    const width = Math.max(4, ...[...rules.keys()].map((name) => name.length));
    this.print(`${'NAME'.padEnd(width)}  AGENTS`);
    for (const [name, agents] of rules) this.print(`${name.padEnd(width)}  ${agents.map((agent) => agent.id).join(', ')}`);
  }
}
