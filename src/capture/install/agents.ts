// `--agents` of `tracer init` and `tracer rule`: which of the enabled agents
// (the adapters the plugins bring, src/plugins/agents/) a command works on.
import { ExitCode, TracerError } from '../../core/errors.js';
import type { AgentAdapter } from '../../core/agent.js';

/**
 * What `tracer init` installs when `--agents` is not given: the agents tracer
 * has always hooked. The others (`tracer plugins` lists them) are named, or `all`,
 * so that init never writes into the folders of agents a team does not use.
 */
export const DEFAULT_AGENTS: readonly string[] = ['claude-code', 'cursor', 'codex'];

/** `--agents claude-code,gemini` (or `all`, or `none`; undefined: the defaults), in the order the plugins list them. */
export function parseAgentList<T extends AgentAdapter>(text: string | undefined, agents: readonly T[]): T[] {
  const ids = agents.map((agent) => agent.id);
  if (text === undefined) return agents.filter((agent) => DEFAULT_AGENTS.includes(agent.id));
  const words = text
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  if (words.length === 1 && words[0] === 'all') return [...agents];
  if (words.length === 1 && words[0] === 'none') return [];
  const known = `use a comma-separated list of ${ids.join(', ')} (or all, or none)`;
  for (const word of words) {
    if (!ids.includes(word)) {
      throw new TracerError('unknown_agent', `Unknown agent "${word}" in --agents; ${known}.`, { exitCode: ExitCode.usage });
    }
  }
  if (words.length === 0) throw new TracerError('unknown_agent', `--agents is empty; ${known}.`, { exitCode: ExitCode.usage });
  return agents.filter((agent) => words.includes(agent.id));
}
