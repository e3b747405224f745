import { Command, Option, UsageError } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

/**
 * What the agents' hooks run: `tracer hook <agent> <event>` records one event
 * now; `tracer hook --fold` records the events bin/tracer-hook.sh spooled (it
 * is what the installed hooks start in the background).
 */
export class HookCommand extends TracerCommand {
  // This is the spool's fold, or an event recorded before the agent goes on: it folds nothing first.
  static override foldsSpoolFirst = false;
  static override paths = [['hook']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Record one agent hook event (called by the hooks tracer init installs)',
    details: `
      Reads the agent's hook payload (JSON) on stdin and appends one row to \`traces.jsonl\` of the project the agent works in: agent, event, conversation id, tool, model when known, and for edits the files written with the line ranges, content hashes and line hashes of what the agent wrote. On stop and session-end events it also snapshots the transcript into \`conversations/\` and records the agent's closing message in \`session-summaries.jsonl\`.

      \`<agent>\` is an agent id (\`tracer plugins\` lists them: \`claude-code\`, \`cursor\`, \`codex\`, \`gemini\`, ...); \`<event>\` is the agent's own event name (\`PostToolUse\`, \`afterFileEdit\`, \`Stop\`, ...).

      The hooks \`tracer init\` installs do not run this directly: they run \`bin/tracer-hook.sh\`, which saves the payload to \`$TRACER_HOME/spool/\` without starting node (the agent waits for its hooks) and starts \`tracer hook --fold\` in the background to record it (it folds the spool into each project's \`traces.jsonl\`, transcripts and summaries, every event once and in the order the hooks ran). Every tracer command that reads what the hooks record folds the spool first, so a commit, a push or a view sees every event a hook has returned from. Set \`TRACER_HOOK_SYNC=1\` in the agent's environment to record before the hook returns instead.

      It never gets in the agent's way: it always exits 0 and prints nothing. Failures (invalid JSON, missing fields, payloads over 8 MiB) go to \`hook-errors.log\` in the project folder, or in \`$TRACER_HOME\` when there is no project. Outside a git repository nothing is recorded unless the global setting \`capture_detached_edits\` is true.
    `,
    examples: [
      ['What a Claude Code PostToolUse hook runs', '$0 hook claude-code PostToolUse < payload.json'],
      ['What a Cursor afterFileEdit hook runs', '$0 hook cursor afterFileEdit < payload.json'],
      ['Record the events the installed hooks spooled', '$0 hook --fold'],
    ],
  });

  fold = Option.Boolean('--fold', false, { description: 'Record the events the installed hooks spooled, instead of one from stdin' });
  agent = Option.String({ name: 'agent', required: false });
  event = Option.String({ name: 'event', required: false });

  async run() {
    const { env, cwd, stdin } = this.context;
    if (this.fold) {
      if (this.agent !== undefined) throw new UsageError('tracer hook --fold takes no agent or event; it records every spooled one');
      const { runSpoolFold } = await import('../capture/spool/fold-first.js');
      return runSpoolFold(env);
    }
    if (this.agent === undefined || this.event === undefined)
      throw new UsageError('tracer hook takes an agent and an event, e.g. tracer hook claude-code PostToolUse, or --fold');
    const { runHook } = await import('../capture/hook/run-hook.js');
    return runHook(this.agent, this.event, { stdin, env, cwd });
  }
}
