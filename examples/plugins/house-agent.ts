// An organization's own coding agent, recorded by tracer like the built-in ones:
// an agent adapter in a plugin. "Acme Agent" reads Claude-style hooks from
// `.acme/hooks.json` and sends one JSON payload per event:
//   {"session": "...", "cwd": "/repo", "event": "file_written", "file": "src/a.ts", "text": "...", "model": "..."}
//
// Once compiled (`npx tsc -p examples/plugins`), list it in $TRACER_HOME/plugins.json
// (or `tracer config set plugins <path>`), then `tracer init --agents acme`.
// The hook loads this module only for `tracer hook acme <event>`; it imports
// types only, so it costs the agent's tool calls nothing else.
// A guide to writing one: docs/plugins.md, "An agent".
import type { AgentAdapter, HookEvent, Payload, TracerPlugin } from 'tracer/plugin';

const acme: AgentAdapter = {
  id: 'acme',
  title: 'Acme Agent',
  install: {
    kind: 'settings',
    layout: 'grouped',
    projectFile: '.acme/hooks.json',
    events: [{ event: 'prompt' }, { event: 'file_written', matcher: 'write|edit' }, { event: 'done' }],
  },
  normalize(event: string, payload: Payload): HookEvent {
    if (typeof payload.session !== 'string' || payload.session === '') throw new Error('the Acme payload has no "session"');
    const written = event === 'file_written' && typeof payload.file === 'string' && typeof payload.text === 'string';
    return {
      agent: 'acme',
      event,
      conversationId: payload.session,
      model: typeof payload.model === 'string' ? payload.model : undefined,
      cwd: typeof payload.cwd === 'string' ? payload.cwd : undefined,
      // What the agent wrote: tracer finds these lines in the file as it stands now.
      writes: written ? [{ filePath: payload.file as string, fragments: [{ text: payload.text as string }] }] : [],
      promptChars: event === 'prompt' && typeof payload.prompt === 'string' ? payload.prompt.length : undefined,
      endsTurn: event === 'done',
      reportedSummary: event === 'done' && typeof payload.summary === 'string' ? payload.summary : undefined,
    };
  },
};

const plugin: TracerPlugin = { name: 'acme-agent', agents: [acme], apply() {} };

export default plugin;
