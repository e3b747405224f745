import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';

/**
 * What the agents' hooks run: `tracer hook <agent> <event>` records one event
 * now. The hooks `tracer init` installs spool the event instead and start
 * `tracer hook --fold` (HookFoldCommand) in the background.
 */
export class HookCommand extends TracerCommand {
  // An event recorded before the agent goes on: nothing to fold first, and nothing to wait for.
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

  agent = Option.String({ name: 'agent', required: true });
  event = Option.String({ name: 'event', required: true });

  async run() {
    const { env, cwd, stdin } = this.context;
    const { runHook } = await import('../capture/hook/direct.js');
    return runHook(this.agent, this.event, { stdin, env, cwd });
  }
}

/** `tracer hook --fold`: what bin/tracer-hook.sh starts in the background after it spooled an event. */
export class HookFoldCommand extends TracerCommand {
  // It is the spool's fold.
  static override foldsSpoolFirst = false;
  static override paths = [['hook']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Record the agent events the installed hooks spooled',
    details: `
      Folds \`$TRACER_HOME/spool/\` into each project's \`traces.jsonl\`, transcripts and summaries, and the commits git's hooks spooled into ledgers, notes and commit links: every entry once, in the order the hooks ran (a commit after the agents' events spooled before it), whatever kills it. A fold already under way is not waited for; the events it did not take stay for the next one. Like \`tracer hook\`, it exits 0 and prints nothing; failures go to \`hook-errors.log\`.
    `,
    examples: [['Record the spooled events now', '$0 hook --fold']],
  });

  fold = Option.Boolean('--fold', { required: true, description: 'Record the spooled events' });

  async run() {
    const { runSpoolFold } = await import('../capture/spool/fold-first.js');
    return runSpoolFold(this.context.env);
  }
}
