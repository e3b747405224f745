import { Command, Option } from 'clipanion';
import { readFileSync } from 'node:fs';
import { resolve, relative } from 'node:path';
import { TracerCommand } from '../../cli/tracer-command.js';
import { loadEnabledAgents } from '../../capture/hook/run-hook.js';
import { ExitCode, TracerError } from '../../core/errors.js';
import { errnoCode } from '../../files/index.js';
import { parseAgentList } from '../../capture/install/agents.js';
import { checkRuleName, DEFAULT_RULE_TEXT, planRule, ruleAgents, worktreeFor, writeRules } from '../../capture/install/rules.js';

export class RuleAddCommand extends TracerCommand {
  static override foldsSpoolFirst = false;
  static override paths = [['rule', 'add']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Install a rule that every coding agent loads',
    details: `
      Writes \`.cursor/rules/tracer-<name>.mdc\` (with Cursor's front matter, applied to every request), \`.claude/rules/tracer-<name>.md\` and \`.codex/rules/tracer-<name>.md\` in the working tree.

      The text comes from \`--from <file>\` or \`--text <text>\`; without either, the built-in rule tells agents that \`tracer context\` prints the recent sessions, their summaries and the attribution of the last commits. A source that starts with front matter keeps it in the Cursor file. A different rule of the same name is only replaced with \`--force\`; the same rule again changes nothing.
    `,
    examples: [
      ['Install the built-in rule as "context"', '$0 rule add context'],
      [
        'Install your own text, for Cursor and Claude Code only',
        '$0 rule add review --from docs/agent-review.md --agents cursor,claude-code',
      ],
      ['Replace a rule', '$0 rule add context --text "Run tracer context first." --force'],
    ],
  });

  from = Option.String('--from', { description: 'Read the rule text from this file' });
  text = Option.String('--text', { description: 'Use this text as the rule' });
  force = Option.Boolean('--force', false, { description: 'Replace a different rule of the same name' });
  agents = Option.String('--agents', 'all', {
    description: 'Agents to install it for: a comma-separated list of claude-code, cursor, codex (or all)',
  });
  name = Option.String({ name: 'name' });

  async run() {
    const { cwd, env } = this.context;
    const name = checkRuleName(this.name);
    const agents = parseAgentList(this.agents, ruleAgents(await loadEnabledAgents(this.context)));
    const source = this.source(cwd);
    const worktree = worktreeFor(cwd, env);
    const writes = planRule(worktree, agents, name, source, this.force);
    await writeRules(writes);
    this.print(`Rule ${name}:`);
    const shown = writes.map((write) => relative(worktree, write.path));
    const width = Math.max(...shown.map((path) => path.length));
    writes.forEach((write, index) => this.print(`  ${write.agent.id.padEnd(11)}  ${shown[index]!.padEnd(width)}  ${write.change}`));
  }

  private source(cwd: string): string {
    if (this.from !== undefined && this.text !== undefined) {
      throw new TracerError('rule_source_conflict', 'Pass either --from <file> or --text <text>, not both.', { exitCode: ExitCode.usage });
    }
    let text = DEFAULT_RULE_TEXT;
    if (this.text !== undefined) text = this.text;
    if (this.from !== undefined) {
      const path = resolve(cwd, this.from);
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        throw new TracerError(
          'rule_source_unreadable',
          `Cannot read ${path} (${errnoCode(error) ?? (error as Error).message}); check the path given to --from.`,
          { exitCode: ExitCode.usage },
        );
      }
    }
    if (text.trim() === '')
      throw new TracerError('rule_text_empty', 'The rule text is empty; give some text with --text or a non-empty file with --from.', {
        exitCode: ExitCode.usage,
      });
    return text;
  }
}
