import { copyFileSync, cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup } from '../helpers/cli.js';
import { startService, stopAllServices, type ServiceHandle } from '../helpers/service.js';
import { addConversation, addLedger, addSummary, addTrace, machine, transcript, type Machine } from '../helpers/sync-fixtures.js';

// `push`, `pull` and `sync` alone (or with --json or --quiet), as hooks and schedulers
// run them, do the same work as with `--remote origin`, which names the default
// remote. Two machines with the same data, each against its own project on one
// service, must print the same, exit the same and leave the same state files, on
// success. (Issue 12 had the bare lines answered by a second path; issue 30 left one
// way to start a command, and this test keeps the behaviour it protected.)

test.after(async () => {
  await stopAllServices();
  cleanup();
});

const FILES = ['traces.jsonl', 'ledgers.jsonl', 'commit-links.jsonl', 'session-summaries.jsonl', 'conversations.jsonl'];

async function machineFor(service: ServiceHandle, project: string): Promise<Machine> {
  await service.createProject('acme', project);
  const token = await service.createToken({ org: 'acme', project });
  return machine({ remoteUrl: `${service.url}/acme/${project}`, token });
}

/** The same rows (and transcript bytes) in the second machine as in the first. */
function mirror(from: Machine, to: Machine): void {
  for (const file of FILES) {
    try {
      copyFileSync(join(from.dir, file), join(to.dir, file));
    } catch {
      // not every file exists in every round
    }
  }
  cpSync(join(from.dir, 'conversations'), join(to.dir, 'conversations'), { recursive: true, force: true });
}

/** What may differ between the two machines: the project slug in URLs, and durations. */
const normalize = (text: string) => text.replace(/acme\/(bare|clip)\b/g, 'acme/PROJECT').replace(/\d+(\.\d+)? ?m?s\b/g, 'T');

function contents(m: Machine, file: string): string | undefined {
  return existsSync(join(m.dir, file)) ? readFileSync(join(m.dir, file), 'utf8') : undefined;
}

/** sync-state.json, with the pull cursors masked: they are the service's own row positions, which differ by project. */
function state(m: Machine) {
  const file = JSON.parse(readFileSync(join(m.dir, 'sync-state.json'), 'utf8'));
  for (const remote of Object.values<{ cursors?: Record<string, string> }>(file.remotes)) {
    for (const family of Object.keys(remote.cursors ?? {})) remote.cursors![family] = 'CURSOR';
  }
  return normalize(JSON.stringify(file, null, 2));
}

test('with and without --remote naming the default: same stdout, --json, --quiet, exit code and state files on successful push, pull and sync', async () => {
  const service = await startService();
  const bare = await machineFor(service, 'bare');
  const clip = await machineFor(service, 'clip');
  const seed = () => {
    const trace = addTrace(bare, { conversation_id: 'c1' });
    addLedger(bare, [trace.id]);
    addSummary(bare);
    mirror(bare, clip);
  };
  addConversation(bare, 'c1', transcript(300 * 1024, 'big transcript'));
  seed();
  const rounds: string[][] = [
    ['push'],
    ['pull'],
    ['sync'],
    ['push', '--json'],
    ['pull', '--json'],
    ['sync', '--json'],
    ['push', '--quiet'],
  ];
  for (const args of rounds) {
    seed();
    const fast = await bare.main(args);
    const full = await clip.main([...args, '--remote', 'origin']);
    const label = args.join(' ');
    assert.is(fast.code, 0, `${label}: ${fast.stderr}`);
    assert.is(full.code, fast.code, label);
    assert.is(normalize(full.stdout), normalize(fast.stdout), `${label}: stdout`);
    assert.is(normalize(full.stderr), normalize(fast.stderr), `${label}: stderr`);
    assert.is(state(clip), state(bare), `${label}: sync-state.json`);
    for (const file of FILES) assert.is(contents(clip, file), contents(bare, file), `${label}: ${file}`);
    if (args.includes('--json')) assert.ok(JSON.parse(fast.stdout).ok, `${label}: a JSON result`);
  }
  assert.match(JSON.parse((await bare.main(['push', '--json'])).stdout).push.remote, 'origin');
  // One smoke test of the binary for the lines hooks and schedulers run.
  seed();
  const spawned = await bare.run(['sync', '--quiet']);
  assert.is(spawned.code, 0, spawned.stderr);
  assert.is(spawned.stdout, '');
});

test.run();
