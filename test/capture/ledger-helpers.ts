import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { withContentId } from '../../src/core/content-id.js';
import { isAttributableLine, lineHash, type TraceRecord } from '../../src/capture/trace-record.js';
import { cleanEnv, runMain, settleSpool, tempDir } from '../helpers/cli.js';
import { assertValidLedger } from './agent-trace-schema.js';

/**
 * Shared by the ledger and rewrite tests: real repositories, a home per machine,
 * traces seeded as rows the way `tracer hook` writes them, and git run with the
 * test's TRACER_HOME so installed hooks never touch the real ~/.tracer.
 */
export const PROJECT_ID = 'ledger-test-project';

export interface Machine {
  home: string;
  repo: string;
  dir: string;
}

/** A repository with the project anchor already in place, and a home for it. */
export function machine(repo = newRepo()): Machine {
  const home = join(tempDir('tracer-home-'), 'home');
  writeFileSync(join(repo, '.git', 'tracer-id'), `${PROJECT_ID}\n`);
  return { home, repo, dir: join(home, 'projects', PROJECT_ID) };
}

export function newRepo(): string {
  const repo = tempDir('tracer-repo-');
  gitIn(repo, ['init', '-q', '-b', 'main']);
  return repo;
}

/** git with fixed identities and dates (so clones and reruns see the same commits), TRACER_HOME set for the hooks. */
export function gitIn(cwd: string, args: string[], options: { home?: string; input?: string; env?: Record<string, string> } = {}): string {
  const result = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    input: options.input,
    env: {
      ...cleanEnv(),
      ...(options.home ? { TRACER_HOME: options.home } : {}),
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 't@example.com',
      ...options.env,
    },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  // The hooks' fold runs in the background: this reads tracer's files next, as a tracer command would after folding.
  if (options.home) settleSpool(options.home);
  return result.stdout.trim();
}

let clock = Date.parse('2025-03-01T10:00:00Z');
/** Commits at distinct, fixed times: committer time is the ledger's ts. */
export function commitAll(cwd: string, message: string, options: { home?: string } = {}): string {
  clock += 60_000;
  const date = new Date(clock).toISOString();
  gitIn(cwd, ['add', '-A'], options);
  gitIn(cwd, ['commit', '-q', '--allow-empty', '-m', message], { ...options, env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
  return gitIn(cwd, ['rev-parse', 'HEAD']);
}

export function writeFile(repo: string, path: string, lines: readonly string[]): void {
  const full = join(repo, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, lines.map((line) => `${line}\n`).join(''));
}

export interface TraceSpec {
  agent?: string;
  conversation?: string;
  model?: string;
  ts?: string;
  files: Record<string, readonly string[]>;
}

/** A trace row as `tracer hook` writes it: what the agent wrote, with the line hashes the ledger matches. */
export function traceRow(spec: TraceSpec): TraceRecord {
  return withContentId(
    {
      id: '',
      ts: spec.ts ?? '2025-03-01T09:00:00.000Z',
      agent: spec.agent ?? 'claude-code',
      event: 'PostToolUse',
      conversation_id: spec.conversation ?? 'session-1',
      tool: 'Write',
      ...(spec.model === undefined ? { model: 'claude-sonnet-4-5' } : spec.model === '' ? {} : { model: spec.model }),
      files: Object.entries(spec.files).map(([path, lines]) => ({
        path,
        ranges: [{ start_line: 1, end_line: lines.length, content_sha256: createHash('sha256').update(lines.join('\n')).digest('hex') }],
        line_hashes: lines.filter(isAttributableLine).map(lineHash),
      })),
    },
    'id',
  ) as TraceRecord;
}

export function seedTraces(m: Machine, rows: readonly TraceRecord[]): void {
  mkdirSync(m.dir, { recursive: true });
  appendFileSync(join(m.dir, 'traces.jsonl'), rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
}

export function rows<T = any>(m: Machine, file: string): T[] {
  const path = join(m.dir, file);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

export function rawLines(m: Machine, file: string): string[] {
  const path = join(m.dir, file);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** The newest ledger for `commit`; every ledger of the file is checked against the Agent Trace schema on the way. */
export function ledgerOf(m: Machine, commit: string): any {
  const ledgers = rows(m, 'ledgers.jsonl');
  for (const ledger of ledgers) assertValidLedger(ledger);
  return ledgers.filter((ledger) => ledger.commit === commit).at(-1);
}

/** `ai` or `human` when one kind wrote every attributed line of the file, `mixed` otherwise. */
export function fileKind(file: any): string {
  const kinds = new Set<string>(file.conversations.map((conversation: any) => conversation.contributor.type));
  return kinds.size > 1 ? 'mixed' : [...kinds][0]!;
}

export function commitLink(m: Machine, args: string[] = [], cwd = m.repo) {
  return runMain(['commit-link', ...args], { cwd, home: m.home });
}

export function note(cwd: string, commit: string): string | undefined {
  const result = spawnSync('git', ['notes', '--ref=tracer', 'show', commit], { cwd, encoding: 'utf8', env: cleanEnv() });
  return result.status === 0 ? result.stdout : undefined;
}

/** Line numbers covered by a file's ranges, per contributor type of the conversation. */
export function linesByType(file: any): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const conversation of file.conversations) {
    for (const range of conversation.ranges) {
      for (let line = range.start_line; line <= range.end_line; line += 1) (out[conversation.contributor.type] ??= []).push(line);
    }
  }
  return out;
}
