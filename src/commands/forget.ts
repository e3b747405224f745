import { Command, Option } from 'clipanion';
import { parseSince } from '../cli/since.js';
import { TracerCommand } from '../cli/tracer-command.js';
import { AGENT_ID } from '../core/agent.js';
import { ExitCode, TracerError } from '../core/errors.js';

export class ForgetCommand extends TracerCommand {
  static override usesKernel = true;
  static override paths = [['forget']];
  static override usage = Command.Usage({
    category: 'Sync',
    description: 'Take back what was recorded: forget conversations here, on the remote and on every machine',
    details: `
      Selects conversations by \`--conversation <id>\` (repeatable), \`--agent <id>\` and \`--before <date>\` (combined, all must hold). By default it forgets their content: transcript snapshots and summaries. \`--with-traces\` also forgets their trace rows; \`--with-attribution\` also the ledgers and commit links that name them (without it, AI-share figures do not change when a transcript goes).

      \`--dry-run\` lists what would go; \`--yes\` does it. It cannot be undone.

      The remote forgets first (its token must have role \`admin\`): it removes the rows and blobs from its disk and keeps tombstones (what was forgotten, by whom, when; never the content). Then this machine's copies go, each file rewritten atomically. Every other machine drops its copies at its next pull or push, and a push of an old copy is not stored again. \`--local-only\` forgets on this machine alone, with no remote.
    `,
    examples: [
      ['See what forgetting a conversation would remove', '$0 forget --conversation 3f2a9c --dry-run'],
      ['Forget it everywhere', '$0 forget --conversation 3f2a9c --yes'],
      ['Forget every transcript and trace older than 2024', '$0 forget --before 2024-01-01 --with-traces --yes'],
      ["Forget one agent's conversations on this machine only", '$0 forget --agent cursor --local-only --yes'],
    ],
  });

  conversation = Option.Array('--conversation', { description: 'A conversation id to forget; repeatable' });
  before = Option.String('--before', { description: 'Only what was recorded before this ISO-8601 date or date-time' });
  agent = Option.String('--agent', { description: "Only this agent's conversations (an agent id, e.g. claude-code)" });
  withTraces = Option.Boolean('--with-traces', false, { description: 'Also forget the trace rows' });
  withAttribution = Option.Boolean('--with-attribution', false, { description: 'Also forget the ledgers and commit links that name them' });
  dryRun = Option.Boolean('--dry-run', false, { description: 'List what would be forgotten; change nothing' });
  yes = Option.Boolean('--yes', false, { description: 'Forget it: this cannot be undone' });
  remote = Option.String('--remote', { description: 'Remote to forget on (default: remote.default, or the sole remote)' });
  localOnly = Option.Boolean('--local-only', false, { description: 'Forget on this machine only, without a remote' });
  json = Option.Boolean('--json', false, { description: 'Print one machine-readable result object on stdout' });

  async run() {
    const before = this.before === undefined ? undefined : parseDate(this.before);
    if (this.agent !== undefined && !AGENT_ID.test(this.agent))
      throw new TracerError(
        'invalid_agent',
        `--agent takes an agent id (lowercase letters, digits, dashes, e.g. claude-code), not "${this.agent}".`,
        {
          exitCode: ExitCode.usage,
        },
      );
    const ids = this.conversation?.map((id) => id.trim());
    if (ids?.some((id) => id === ''))
      throw new TracerError('invalid_conversation', '--conversation takes a conversation id, not an empty string.', {
        exitCode: ExitCode.usage,
      });
    if (!ids?.length && before === undefined && this.agent === undefined)
      throw new TracerError('nothing_selected', 'Say what to forget: --conversation <id>, --agent <id> and/or --before <date>.', {
        exitCode: ExitCode.usage,
      });
    if (this.localOnly && this.remote !== undefined)
      throw new TracerError('invalid_usage', '--local-only and --remote contradict each other; pass one of them.', {
        exitCode: ExitCode.usage,
      });
    this.project();
    const { forgetCommand } = await import('../forget/command.js');
    return forgetCommand(await this.kernel(), this.context.stdout, {
      conversationIds: ids?.length ? [...new Set(ids)] : undefined,
      before,
      agent: this.agent,
      withTraces: this.withTraces,
      withAttribution: this.withAttribution,
      dryRun: this.dryRun,
      yes: this.yes,
      remote: this.remote,
      localOnly: this.localOnly,
      json: this.json,
    });
  }
}

/** An ISO-8601 date or date-time with a zone (cli/since.ts), as UTC ISO; anything else is invalid_date. */
function parseDate(value: string): string {
  try {
    return parseSince(value)!;
  } catch {
    throw new TracerError(
      'invalid_date',
      `--before takes an ISO-8601 date or date-time with a time zone, e.g. 2024-05-01 or 2024-05-01T12:00:00Z, not "${value}".`,
      { exitCode: ExitCode.usage },
    );
  }
}
