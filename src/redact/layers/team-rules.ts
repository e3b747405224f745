// Layer 3, the team's own rules: `.tracer/redact.json` at the repository root,
// committed so that everyone's capture applies them.
//
//   {"rules": [{"id": "acme-key", "pattern": "ACME-[0-9a-f]{32}", "samples": ["ACME-…"]}]}
//
// `pattern` is a JavaScript regular expression; a named group `secret` narrows
// what is replaced (`"pattern": "acme_key=(?<secret>\\w+)"`); `flags` may add
// `i`, `m`, `s` or `u`. Every rule must match each of its samples when the file
// is loaded, else the whole file is refused (`redact_rule_invalid`, naming the
// rule): the built-in layers still run, and capture logs the refusal.
//
// The patterns run in a worker thread, time-boxed: a pattern that backtracks
// catastrophically is stopped, reported (`redact_rule_timeout`, naming it) and
// dropped for the rest of the run, and the other team rules run again without it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { errnoCode } from '../../files/index.js';
import { KIND } from '../placeholder.js';
import { teamWorker } from './team-worker.js';
import type { DetectedSecret, RedactionDetector, RedactionScope } from '../types.js';

export const TEAM_RULES_FILE = join('.tracer', 'redact.json');

export interface TeamRule {
  id: string;
  pattern: string;
  flags: string;
  samples: string[];
}

/** How long the worker may take on its samples, and on a text: a base and a rate (ms per KiB), generous for a busy machine. */
const SAMPLES_TIME_BOX_MS = 2_000;
const SCAN_TIME_BOX_MS = 2_000;
const SCAN_MS_PER_KIB = 1;

/** The team's detector for this repository, or none (no file, or a file refused: reported through the scope). */
export async function teamRulesDetector(scope: RedactionScope): Promise<RedactionDetector | undefined> {
  if (!scope.root) return undefined;
  const path = join(scope.root, TEAM_RULES_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    scope.report(invalid(`${path} cannot be read (${errnoCode(error) ?? 'unknown error'}); fix its permissions`));
    return undefined;
  }
  const parsed = parseTeamRules(text, path);
  if ('problem' in parsed) {
    scope.report(invalid(parsed.problem));
    return undefined;
  }
  const runner = new TeamRunner(parsed.rules, path, scope.report);
  const refused = await runner.checkSamples();
  if (refused) {
    await runner.close();
    scope.report(invalid(refused));
    return undefined;
  }
  return {
    id: 'team-rules',
    source: TEAM_RULES_FILE,
    description: `The team's rules in ${TEAM_RULES_FILE}`,
    rules: parsed.rules.map((rule) => ({ id: rule.id, description: `/${rule.pattern}/${rule.flags}` })),
    detect: (content) => runner.scan(content),
    close: () => runner.close(),
  };
}

function invalid(sentence: string) {
  return {
    code: 'redact_rule_invalid',
    message: `${sentence}; fix the file (its rules are not applied until then, the built-in rules still are), and tracer redact rules shows whether it loads.`,
  };
}

/** The file's rules, or why it is refused (one sentence, naming the rule). */
export function parseTeamRules(text: string, path: string): { rules: TeamRule[] } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${path} is not valid JSON` };
  }
  const list = (value as { rules?: unknown } | null)?.rules;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Array.isArray(list))
    return { problem: `${path} must be an object with a "rules" array` };
  const rules: TeamRule[] = [];
  for (const [index, entry] of list.entries()) {
    const rule = entry as Partial<Record<keyof TeamRule, unknown>> | null;
    const name = typeof rule?.id === 'string' && rule.id !== '' ? `"${rule.id}"` : `number ${index + 1}`;
    if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) return { problem: `rule ${name} of ${path} is not an object` };
    if (typeof rule.id !== 'string' || !KIND.test(rule.id))
      return { problem: `rule ${name} of ${path} needs an "id" of lowercase letters, digits, ".", "_" and "-" (it names the placeholder)` };
    if (rules.some((known) => known.id === rule.id)) return { problem: `rule "${rule.id}" appears twice in ${path}` };
    if (typeof rule.pattern !== 'string' || rule.pattern === '')
      return { problem: `rule "${rule.id}" of ${path} needs a "pattern" string` };
    const flags = rule.flags === undefined ? '' : rule.flags;
    if (typeof flags !== 'string' || !/^[imsu]*$/.test(flags))
      return { problem: `rule "${rule.id}" of ${path} has "flags" other than i, m, s and u` };
    try {
      new RegExp(rule.pattern, `${flags}gd`);
    } catch (error) {
      return { problem: `rule "${rule.id}" of ${path} has a pattern that is not a valid regular expression (${(error as Error).message})` };
    }
    if (new RegExp(rule.pattern, flags).test('')) return { problem: `rule "${rule.id}" of ${path} has a pattern that matches empty text` };
    // Samples are how a mistake in a pattern shows when the file is loaded rather than as a secret let through.
    const samples = rule.samples;
    if (!Array.isArray(samples) || samples.length === 0 || !samples.every((sample) => typeof sample === 'string' && sample !== ''))
      return {
        problem: `rule "${rule.id}" of ${path} needs "samples": a list of at least one text the pattern must match (an example of the secret it is for)`,
      };
    rules.push({ id: rule.id, pattern: rule.pattern, flags, samples });
  }
  return { rules };
}

type Reply =
  | { type: 'rule'; id: number; rule: number }
  | { type: 'done'; id: number; spans?: Array<[number, number, number]>; failures?: Array<[number, number]> };

/** The team's patterns in a worker, each call time-boxed. */
class TeamRunner {
  #worker?: Worker;
  #next = 0;
  readonly #dropped = new Set<number>();

  constructor(
    readonly rules: readonly TeamRule[],
    readonly path: string,
    readonly report: RedactionScope['report'],
  ) {}

  /** Why the file is refused, when a rule misses one of its samples (or takes too long on them). */
  async checkSamples(): Promise<string | undefined> {
    const answer = await this.#call({ type: 'samples', samples: this.rules.map((rule) => rule.samples) }, SAMPLES_TIME_BOX_MS);
    if ('timedOut' in answer)
      return `rule "${this.rules[answer.timedOut]!.id}" of ${this.path} ran longer than ${SAMPLES_TIME_BOX_MS} ms on its own samples (a pattern that backtracks catastrophically)`;
    const [failure] = answer.failures ?? [];
    if (!failure) return undefined;
    const [rule, sample] = failure;
    return `rule "${this.rules[rule]!.id}" of ${this.path} does not match its sample number ${sample + 1}`;
  }

  async scan(text: string): Promise<DetectedSecret[]> {
    for (;;) {
      const active = this.rules.map((_, index) => index).filter((index) => !this.#dropped.has(index));
      if (active.length === 0) return [];
      const limit = SCAN_TIME_BOX_MS + Math.ceil(text.length / 1024) * SCAN_MS_PER_KIB;
      const answer = await this.#call({ type: 'scan', text, rules: active }, limit);
      if (!('timedOut' in answer)) return (answer.spans ?? []).map(([start, end, rule]) => ({ start, end, rule: this.rules[rule]!.id }));
      this.#dropped.add(answer.timedOut);
      this.report({
        code: 'redact_rule_timeout',
        message: `The team rule "${this.rules[answer.timedOut]!.id}" of ${this.path} ran longer than ${limit} ms on ${text.length} characters (a pattern that backtracks catastrophically) and was stopped, so it is skipped for the rest of this run (the other rules still ran); rewrite it without nested quantifiers such as (a+)+.`,
      });
    }
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(`(${teamWorker.toString()})(require)`, {
      eval: true,
      workerData: { rules: this.rules.map(({ pattern, flags }) => ({ pattern, flags })) },
    });
    // A redactor nobody closed must not keep the process alive.
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  /** One request; the rule it was on when the time box ran out ends the worker (a new one starts on the next call). */
  #call(request: { type: 'scan'; text: string; rules: number[] } | { type: 'samples'; samples: string[][] }, limitMs: number) {
    const worker = this.#start();
    const id = (this.#next += 1);
    return new Promise<Extract<Reply, { type: 'done' }> | { timedOut: number }>((resolve, reject) => {
      let current = request.type === 'scan' ? request.rules[0]! : 0;
      const timer = setTimeout(() => {
        finish();
        this.#worker = undefined;
        void worker.terminate();
        resolve({ timedOut: current });
      }, limitMs);
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        if (reply.type === 'rule') current = reply.rule;
        else {
          finish();
          resolve(reply);
        }
      };
      const onError = (error: Error) => {
        finish();
        this.#worker = undefined;
        reject(error);
      };
      const finish = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ ...request, id });
    });
  }
}
