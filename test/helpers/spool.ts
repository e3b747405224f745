import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * An installed hook command spools its event and folds it in the background
 * (bin/tracer-hook.sh): a test that reads traces.jsonl itself, rather than
 * through a tracer command (which folds first), waits for that fold.
 */
export async function spoolFolded(home: string, timeoutMs = 30_000): Promise<void> {
  const dir = join(home, 'spool');
  const until = Date.now() + timeoutMs;
  while (pending(dir)) {
    if (Date.now() > until) throw new Error(`the spool ${dir} was not folded within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function pending(dir: string): boolean {
  if (existsSync(join(dir, '.fold.lock'))) return true;
  try {
    return readdirSync(dir).some((name) => name.endsWith('.event'));
  } catch {
    return false;
  }
}
