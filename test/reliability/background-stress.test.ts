// Issue 34's stress: several agent sessions fire their hooks at once through
// the installed commands, each starting a fold in the background, while a
// killer SIGKILLs whatever process holds the fold's, reconcile's or the
// attribution state's lock, and a person commits what the agents wrote,
// merges a branch and pulls a colleague's commits. After one command: every
// edit is in traces.jsonl once, in order per session; every committed AI line
// is attributed in the commit that took it; nothing is left spooled or
// locked; and no command said it showed a partial view.
//
// Short in npm test; TRACER_SOAK=1 runs more sessions and edits, with a fresh
// seed (TRACER_FAULT_SEED replays one).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { holderState, type LockHolder } from '../../src/store/file-lock.js';
import { cleanEnv, cleanup, settleSpool, tempDir } from '../helpers/cli.js';
import { payload, projectDir } from '../capture/hook-fixtures.js';
import { dice, pause, replayable, SOAK, type Dice } from './support/faults.js';
import { foldLock, initialized, ledgers, locksLeft, spooled, traces, type Box } from './support/spool-kit.js';

test.after.each(cleanup);

const SESSIONS = SOAK ? 4 : 3;
const EDITS = SOAK ? 10 : 5;

interface Edit {
  session: string;
  path: string;
  lines: number;
}

/** Runs the command `tracer init` installed for claude-code's PostToolUse, as the agent does, for a Write of `path`. */
function agentWrite(box: Box, command: string, session: string, path: string, lines: readonly string[]): Promise<void> {
  const file = join(box.repo, path);
  const content = `${lines.join('\n')}\n`;
  writeFileSync(file, content);
  const input = JSON.parse(payload('claude-code', 'PostToolUse.Write', { repo: box.repo }));
  input.session_id = session;
  input.tool_input = { file_path: file, content };
  input.tool_response = { ...input.tool_response, filePath: file, content };
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: box.repo,
      env: { ...cleanEnv(), TRACER_HOME: box.home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 && output === '' ? resolve() : reject(new Error(`hook exited ${code}: ${output}`))));
    child.stdin.end(JSON.stringify(input));
  });
}

/** SIGKILLs the live process holding one of the locks, now and then, until stopped; how many it killed. */
function killer(box: Box, d: Dice): { stop: () => Promise<number> } {
  let running = true;
  let kills = 0;
  const locks = () => {
    const project = (() => {
      try {
        return projectDir(box.home);
      } catch {
        return undefined;
      }
    })();
    return [foldLock(box.home), ...(project ? ['reconcile.lock', 'attribution-state.lock'].map((name) => join(project, name)) : [])];
  };
  const loop = (async () => {
    while (running) {
      await pause(d.int(10, 120));
      for (const lock of locks()) {
        let holder: LockHolder;
        try {
          holder = JSON.parse(readFileSync(lock, 'utf8')) as LockHolder;
        } catch {
          continue;
        }
        // Only the very process named (its start time checked): never a pid since reused.
        if (holder.pid === process.pid || holderState(holder) !== 'alive' || d.next() < 0.25) continue;
        try {
          process.kill(holder.pid, 'SIGKILL');
          kills += 1;
          d.note(`killed pid ${holder.pid} holding ${lock}`);
        } catch {
          // gone meanwhile
        }
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return kills;
    },
  };
}

const git = (box: Box, ...args: string[]) => gitUnsettled(box.home, box.repo, args);

/** git without waiting for the hooks' fold: the stress goes on while it runs. */
function gitUnsettled(home: string, cwd: string, args: string[]): string {
  const result = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...cleanEnv(),
      TRACER_HOME: home,
      GIT_AUTHOR_NAME: 'Person',
      GIT_AUTHOR_EMAIL: 'p@example.com',
      GIT_COMMITTER_NAME: 'Person',
      GIT_COMMITTER_EMAIL: 'p@example.com',
    },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}

async function stress(d: Dice): Promise<void> {
  const box = await initialized();
  const command = JSON.parse(readFileSync(join(box.repo, '.claude/settings.json'), 'utf8')).hooks.PostToolUse[0].hooks[0].command as string;
  // A colleague's clone through a bare origin, for the pulls.
  const origin = join(tempDir('tracer-origin-'), 'origin.git');
  git(box, 'commit', '-q', '--allow-empty', '-m', 'start');
  gitUnsettled(box.home, box.repo, ['clone', '-q', '--bare', box.repo, origin]);
  git(box, 'remote', 'add', 'origin', origin);
  git(box, 'fetch', '-q', 'origin');
  git(box, 'branch', '-q', '--set-upstream-to=origin/main', 'main');
  const colleague = join(tempDir('tracer-colleague-'), 'clone');
  gitUnsettled(box.home, tempDir('tracer-cwd-'), ['clone', '-q', origin, colleague]);

  const done: Edit[] = [];
  const committed = new Map<string, Edit[]>();
  const taken = new Set<string>();
  const kill = killer(box, d);
  const sessions = Array.from({ length: SESSIONS }, (_, index) => `stress-${index}`);
  const agents = sessions.map(async (session, index) => {
    for (let edit = 0; edit < EDITS; edit++) {
      const path = `s${index}-e${edit}.ts`;
      const lines = Array.from(
        { length: d.int(1, 4) },
        (_, line) => `export const ${session.replace('-', '_')}_${edit}_${line} = ${d.int(0, 1e6)};`,
      );
      await agentWrite(box, command, session, path, lines);
      done.push({ session, path, lines: lines.length });
      await pause(d.int(0, 60));
    }
  });
  let stepsLeft = true;
  const person = (async () => {
    let step = 0;
    while (stepsLeft) {
      await pause(d.int(80, 300));
      step += 1;
      const action = d.pick(['commit', 'commit', 'commit', 'merge', 'pull'] as const);
      d.note(`person: ${action}`);
      if (action === 'commit') {
        // What the agents' hooks have returned from, and a line of the person's own.
        const ready = done.filter((edit) => !taken.has(edit.path));
        for (const edit of ready) taken.add(edit.path);
        writeFileSync(join(box.repo, `person-${step}.txt`), `by hand ${step}\n`);
        git(box, 'add', `person-${step}.txt`, ...ready.map((edit) => edit.path));
        git(box, 'commit', '-q', '-m', `person ${step}`);
        committed.set(git(box, 'rev-parse', 'HEAD'), ready);
      } else if (action === 'merge') {
        git(box, 'checkout', '-q', '-b', `side-${step}`);
        writeFileSync(join(box.repo, `side-${step}.txt`), `side ${step}\n`);
        git(box, 'add', `side-${step}.txt`);
        git(box, 'commit', '-q', '-m', `side ${step}`);
        git(box, 'checkout', '-q', 'main');
        git(box, 'merge', '-q', '--no-ff', '-m', `merge side ${step}`, `side-${step}`);
      } else {
        writeFileSync(join(colleague, `colleague-${step}.txt`), `colleague ${step}\n`);
        gitUnsettled(box.home, colleague, ['add', '-A']);
        gitUnsettled(box.home, colleague, ['commit', '-q', '-m', `colleague ${step}`]);
        gitUnsettled(box.home, colleague, ['pull', '-q', '--no-rebase', '--no-edit']);
        gitUnsettled(box.home, colleague, ['push', '-q', 'origin', 'HEAD:main']);
        git(box, 'pull', '-q', '--no-rebase', '--no-edit');
        git(box, 'push', '-q', 'origin', 'HEAD:main');
      }
    }
  })();
  await Promise.all(agents);
  // The last edits, committed too.
  await pause(50);
  stepsLeft = false;
  await person;
  const last = done.filter((edit) => !taken.has(edit.path));
  if (last.length > 0) {
    git(box, 'add', ...last.map((edit) => edit.path));
    git(box, 'commit', '-q', '-m', 'the rest');
    committed.set(git(box, 'rev-parse', 'HEAD'), last);
  }
  const kills = await kill.stop();
  d.note(`${kills} kills`);

  // One command: it folds whatever the killed folds left.
  const status = await box.run(['status']);
  assert.is(status.code, 0, status.stderr);
  assert.not.match(status.stderr, /spool_not_folded/);
  assert.equal(spooled(box.home), [], 'nothing left in the spool');

  // Every edit once, in order per session.
  const rows = traces(box.home).filter((row) => row.event === 'PostToolUse');
  for (const session of sessions) {
    assert.equal(
      rows.filter((row) => row.conversation_id === session).map((row) => row.files?.[0]?.path),
      done.filter((edit) => edit.session === session).map((edit) => edit.path),
      `the edits of ${session}, once each, in order`,
    );
  }

  // Every committed AI line, attributed in the commit that took it.
  const byCommit = new Map(ledgers(box.home).map((ledger) => [ledger.commit, ledger]));
  for (const [commit, edits] of committed) {
    const ledger = byCommit.get(commit);
    assert.ok(ledger, `a ledger for ${commit}`);
    const expected = edits.reduce((sum, edit) => sum + edit.lines, 0);
    assert.is(
      ledger!.record.metadata['dev.tracer'].lines.ai,
      expected,
      `the AI lines of ${commit} (${edits.map((edit) => edit.path).join(', ')})`,
    );
  }

  // Folds the last hooks started may still be ending: once they have, no lock is left anywhere.
  settleSpool(box.home);
  await pause(100);
  assert.equal(locksLeft(box.home), [], 'no lock left');
  if (SOAK || process.env.TRACER_STRESS_REPORT === '1')
    console.log(
      `background-stress: seed ${d.seed}, ${kills} kills, ${committed.size} commits, ${done.length} edits, ${d.log.filter((line) => line.startsWith('person')).length} person steps`,
    );
}

test('agents, a person and a killer at once: every edit once and in order, every AI line in its commit, no lock left', async () => {
  const d = dice('background-stress', 0x5eed_3401);
  await replayable(d, () => stress(d));
});

test.run();
