// OpenCode loads JavaScript plugins from .opencode/plugins/: tracer installs
// tracer.js, which passes three of OpenCode's plugin events to
// `tracer hook opencode <event>` with a JSON payload of its making:
// `tool.execute.after` (`{sessionID, callID, tool, args, model, directory}`; the
// args come from `tool.execute.before` where a release does not repeat them),
// `file.edited` (`{file, directory}`) and `session.idle` (`{sessionID,
// directory, transcript_path}`). OpenCode keeps no file of the conversation (a
// database, or a file per message and per part): on session.idle the plugin asks
// OpenCode's client for the session's messages and writes them as JSON lines to
// a file of its own, which the hook snapshots and the plugin then deletes. Tools: `write` (`filePath`, `content`), `edit` (`filePath`,
// `oldString`, `newString`, `replaceAll`), `multiedit` (`edits[]`), `patch` (a
// patch in Codex's format). file.edited names no session and no text: it
// records nothing, the tool event already did.
import { join } from 'node:path';
import {
  agentPlugin,
  eventKey,
  isApplyPatch,
  isObject,
  optionalString,
  parseApplyPatch,
  PayloadError,
  requiredString,
  toolWrite,
  userHome,
  type AgentAdapter,
  type FileWrite,
  type HookEvent,
  type Payload,
} from '../../plugin/agent.js';

const PATHS = ['filePath', 'file_path', 'path'];

export function normalizeOpencode(event: string, payload: Payload): HookEvent {
  const key = eventKey(event);
  if (key === 'file.edited') return { agent: 'opencode', event, conversationId: '', writes: [], endsTurn: false, nothingToRecord: true };
  const tool = optionalString(payload.tool);
  const writes = key === 'tool.execute.after' && tool !== undefined ? opencodeWrites(tool, payload.args) : [];
  return {
    agent: 'opencode',
    event,
    conversationId: requiredString(payload, 'sessionID', 'opencode'),
    turnId: optionalString(payload.callID),
    model: optionalString(payload.model),
    tool,
    cwd: optionalString(payload.directory),
    writes,
    transcriptPath: key === 'session.idle' ? optionalString(payload.transcript_path) : undefined,
    endsTurn: key === 'session.idle',
    ...(key === 'tool.execute.after' && writes.length === 0 ? { nothingToRecord: true as const } : {}),
  };
}

function opencodeWrites(tool: string, args: unknown): FileWrite[] {
  const input = isObject(args) ? args : {};
  switch (tool) {
    case 'write':
      return [toolWrite('opencode', tool, input, PATHS, ['content'])];
    case 'edit':
      return [toolWrite('opencode', tool, input, PATHS, ['newString', 'new_string'])];
    case 'multiedit': {
      if (!Array.isArray(input.edits))
        throw new PayloadError('missing_field', 'The opencode multiedit payload has no "edits"; the event was skipped.');
      const base = PATHS.map((member) => input[member]).find((value) => typeof value === 'string');
      return input.edits
        .filter(isObject)
        .map((edit) => toolWrite('opencode', tool, { filePath: base, ...edit }, PATHS, ['newString', 'new_string']));
    }
    case 'patch':
    case 'apply_patch': {
      const patch = [input.patchText, input.patch, input.input].find(
        (value): value is string => typeof value === 'string' && isApplyPatch(value),
      );
      return patch === undefined ? [] : parseApplyPatch(patch);
    }
    default:
      return [];
  }
}

/** The plugin OpenCode loads: plain ESM with node built-ins only, so it runs in any OpenCode (Bun or Node). */
function pluginSource(command: (event: string) => string): string {
  const commands = {
    'tool.execute.after': command('tool.execute.after'),
    'file.edited': command('file.edited'),
    'session.idle': command('session.idle'),
  };
  return `// Installed by tracer init (tracer init --uninstall removes it): passes OpenCode's
// tool.execute.after, file.edited and session.idle events to tracer hook opencode <event>.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COMMANDS = ${JSON.stringify(commands, null, 2)};

function record(event, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('sh', ['-c', COMMANDS[event]], { stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      resolve();
      return;
    }
    child.on('error', () => resolve());
    child.on('close', () => resolve());
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// The session's messages as JSON lines ({info, parts} each), in a folder of this process's own, for the hook to snapshot.
async function writeTranscript(client, sessionID) {
  if (typeof sessionID !== 'string' || !/^[\\w.-]{1,200}$/.test(sessionID) || typeof client?.session?.messages !== 'function') return undefined;
  try {
    const answer = await client.session.messages({ path: { id: sessionID } });
    const messages = Array.isArray(answer) ? answer : answer?.data;
    if (!Array.isArray(messages)) return undefined;
    const folder = await mkdtemp(join(tmpdir(), 'tracer-opencode-'));
    const file = join(folder, sessionID + '.jsonl');
    const lines = messages.map((message) => JSON.stringify({ info: message?.info, parts: message?.parts }));
    await writeFile(file, lines.join('\\n') + '\\n', { mode: 0o600 });
    return file;
  } catch {
    return undefined;
  }
}

export const TracerPlugin = async ({ directory, client }) => {
  const argsByCall = new Map();
  const modelBySession = new Map();
  return {
    'chat.params': async (input) => {
      const model = input?.model?.id ?? input?.model?.modelID;
      if (input?.sessionID && typeof model === 'string') modelBySession.set(input.sessionID, model);
    },
    'tool.execute.before': async (input, output) => {
      if (input?.callID) argsByCall.set(input.callID, output?.args);
    },
    'tool.execute.after': async (input) => {
      const args = input?.args ?? argsByCall.get(input?.callID);
      argsByCall.delete(input?.callID);
      await record('tool.execute.after', {
        sessionID: input?.sessionID,
        callID: input?.callID,
        tool: input?.tool,
        args,
        model: modelBySession.get(input?.sessionID),
        directory,
      });
    },
    event: async ({ event }) => {
      if (event?.type === 'file.edited') await record(event.type, { ...event.properties, directory });
      if (event?.type !== 'session.idle') return;
      const transcript = await writeTranscript(client, event.properties?.sessionID);
      try {
        await record(event.type, { ...event.properties, directory, transcript_path: transcript });
      } finally {
        if (transcript) await rm(join(transcript, '..'), { recursive: true, force: true }).catch(() => {});
      }
    },
  };
};
`;
}

export const opencode: AgentAdapter = {
  id: 'opencode',
  title: 'OpenCode',
  install: {
    kind: 'files',
    projectDir: '.opencode/plugins',
    globalDir: (env) => join(userHome(env), '.config', 'opencode', 'plugins'),
    files: (command) => [{ path: 'tracer.js', text: pluginSource(command) }],
  },
  normalize: normalizeOpencode,
  // The reader is imported on first use: the hook, which loads this module on every tool use, never loads it.
  transcript: () => import('./transcripts/opencode.js').then((module) => module.opencodeTranscript),
};

export default agentPlugin(opencode);
