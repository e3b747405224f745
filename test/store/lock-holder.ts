// A process holding a lock of store/file-lock.ts (lock-holder-worker.ts) until
// killed, for the tests of the lock and of the background work that waits on it.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./lock-holder-worker.ts', import.meta.url));

/** A process holding `lockPath` as `purpose` (a fold, say), once it says it holds it. */
export function lockHolder(lockPath: string, purpose = 'the background fold'): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, lockPath, purpose], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TRACER_LOCK_HOLDER: '1' },
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('held')) resolve(child);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`lock holder exited ${code}: ${stderr}`)));
  });
}

/** The holder killed with SIGKILL, as a crash would end it; resolves once it is gone. */
export function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
