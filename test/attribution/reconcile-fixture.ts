import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runMain, tempDir } from '../helpers/cli.js';
import { commitAll, commitLink, gitIn, machine, rows, seedTraces, traceRow, writeFile, type Machine } from '../capture/ledger-helpers.js';

/**
 * A pull request as the hosting service sees it, built through real git and the
 * real post-commit attribution: two agent commits and one person's commit on
 * `feature`, the person's line landing between two agent lines. `origin` is a
 * bare repository standing in for the service; it keeps the request's head as
 * `refs/pull/7/head`, as GitHub does.
 */
export const AGENT_ONE = [
  'export function parse(input: string) {',
  '  const parts = input.split(",");',
  '  return parts.map(Number);',
  '}',
];
export const PERSON_LINE = '  // checked by hand: empty input gives [0]';
export const AGENT_TWO = ['export function total(values: number[]) {', '  return values.reduce((a, b) => a + b, 0);', '}'];
export const BASE = ['# tools', 'Helpers for numbers.'];

export interface PullRequestRepo {
  a: Machine;
  origin: string;
  base: string;
  agentOne: string;
  person: string;
  agentTwo: string;
}

export async function pullRequestRepo(): Promise<PullRequestRepo> {
  const a = machine();
  const origin = join(tempDir('tracer-origin-'), 'origin.git');
  gitIn(tempDir(), ['init', '-q', '--bare', '-b', 'main', origin]);
  writeFile(a.repo, 'README.md', BASE);
  const base = commitAll(a.repo, 'base');
  gitIn(a.repo, ['remote', 'add', 'origin', origin]);
  gitIn(a.repo, ['push', '-q', '-u', 'origin', 'main']);
  gitIn(a.repo, ['checkout', '-q', '-b', 'feature']);

  seedTraces(a, [traceRow({ conversation: 'session-one', model: 'claude-sonnet-4-5', files: { 'src/parse.ts': AGENT_ONE } })]);
  writeFile(a.repo, 'src/parse.ts', AGENT_ONE);
  const agentOne = commitAll(a.repo, 'parse, by Claude Code');
  await mustLink(a);

  writeFile(a.repo, 'src/parse.ts', [...AGENT_ONE.slice(0, 2), PERSON_LINE, ...AGENT_ONE.slice(2)]);
  const person = commitAll(a.repo, 'a note, by hand');
  await mustLink(a);

  seedTraces(a, [traceRow({ agent: 'codex', conversation: 'session-two', model: 'gpt-5-codex', files: { 'src/total.ts': AGENT_TWO } })]);
  writeFile(a.repo, 'src/total.ts', AGENT_TWO);
  const agentTwo = commitAll(a.repo, 'total, by Codex');
  await mustLink(a);

  gitIn(a.repo, ['push', '-q', 'origin', 'feature', 'feature:refs/pull/7/head']);
  gitIn(a.repo, ['checkout', '-q', 'main']);
  return { a, origin, base, agentOne, person, agentTwo };
}

async function mustLink(m: Machine): Promise<void> {
  const result = await commitLink(m);
  if (result.code !== 0) throw new Error(`commit-link failed: ${result.stderr}`);
}

/** The hosting service's "squash and merge": one commit on main with the branch's tree, `(#7)` in the subject. */
export function squashOnService(origin: string, branch: string, subject: string): string {
  const work = join(tempDir('tracer-service-'), 'work');
  gitIn(tempDir(), ['clone', '-q', origin, work]);
  gitIn(work, ['merge', '-q', '--squash', `origin/${branch}`]);
  const commit = commitAll(work, subject);
  gitIn(work, ['push', '-q', 'origin', 'main']);
  return commit;
}

/** The service's "rebase and merge": every commit of the branch replayed onto main, new ids, same patches. */
export function rebaseOnService(origin: string, branch: string): string[] {
  const work = join(tempDir('tracer-service-'), 'work');
  gitIn(tempDir(), ['clone', '-q', origin, work]);
  const commits = gitIn(work, ['rev-list', '--reverse', `main..origin/${branch}`]).split('\n');
  const landed: string[] = [];
  for (const commit of commits) {
    gitIn(work, ['cherry-pick', commit], { env: { GIT_COMMITTER_DATE: '2025-04-01T10:00:00Z' } });
    landed.push(gitIn(work, ['rev-parse', 'HEAD']));
  }
  gitIn(work, ['push', '-q', 'origin', 'main']);
  return landed;
}

/** A teammate who never had the branch: a fresh clone, and the ledgers `tracer pull` would bring. */
export function teammate(origin: string, from: Machine): Machine {
  const repo = join(tempDir('tracer-b-'), 'repo');
  // file:// so that only what the service would send is copied (a local clone hard-links every object).
  gitIn(tempDir(), ['clone', '-q', `file://${origin}`, repo]);
  gitIn(repo, ['remote', 'set-url', 'origin', origin]);
  const b = machine(repo);
  mkdirSync(b.dir, { recursive: true });
  cpSync(join(from.dir, 'ledgers.jsonl'), join(b.dir, 'ledgers.jsonl'));
  return b;
}

export function reconcileIn(m: Machine, args: string[] = []) {
  return runMain(['reconcile', ...args], { cwd: m.repo, home: m.home });
}

export { rows };

export const SORT = [
  'export function sortBy<T>(items: T[], key: (item: T) => number): T[] {',
  '  const copy = [...items];',
  '  copy.sort((a, b) => key(a) - key(b));',
  '  return copy;',
  '}',
];
export const BRACES = ['}', '', '}'];
export const BY_HAND = ['# sorting', 'sortBy keeps the input untouched.'];

/**
 * A squash whose branch is gone: A's branch (an agent's sortBy and a lone-braces
 * file, then a person's doc) is squash-merged on the service as "Sorting (#12)",
 * the branch deleted, no request ref kept. B clones and has A's ledgers (as
 * `tracer pull` brings them), nothing else: reconcile can only recover by content hash.
 */
export async function goneBranchSquash(): Promise<{ a: Machine; b: Machine; origin: string; squash: string }> {
  const a = machine();
  const origin = join(tempDir('tracer-origin-'), 'origin.git');
  gitIn(tempDir(), ['init', '-q', '--bare', '-b', 'main', origin]);
  writeFile(a.repo, 'README.md', ['# tools']);
  commitAll(a.repo, 'base');
  gitIn(a.repo, ['remote', 'add', 'origin', origin]);
  gitIn(a.repo, ['push', '-q', '-u', 'origin', 'main']);
  gitIn(a.repo, ['checkout', '-q', '-b', 'feature']);
  seedTraces(a, [traceRow({ conversation: 'session-sort', files: { 'src/sort.ts': SORT, 'src/braces.ts': BRACES } })]);
  writeFile(a.repo, 'src/sort.ts', SORT);
  writeFile(a.repo, 'src/braces.ts', BRACES);
  commitAll(a.repo, 'sortBy, by Claude Code');
  await mustLink(a);
  writeFile(a.repo, 'docs/sort.md', BY_HAND);
  commitAll(a.repo, 'docs, by hand');
  await mustLink(a);
  gitIn(a.repo, ['push', '-q', 'origin', 'feature']);

  const squash = squashOnService(origin, 'feature', 'Sorting (#12)');
  // The service deletes the branch and keeps no request ref: only the ledgers are left.
  gitIn(origin, ['branch', '-D', 'feature']);
  return { a, b: teammate(origin, a), origin, squash };
}
