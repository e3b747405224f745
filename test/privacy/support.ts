import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceHandle } from '../helpers/service.js';

/** A token of a role through the admin route (the helpers' createToken makes the default, read). */
export async function tokenWithRole(
  service: ServiceHandle,
  input: { org: string; project?: string; name: string; role: 'push' | 'read' | 'admin' },
): Promise<string> {
  const response = await fetch(`${service.url}/api/v1/admin/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.adminSecret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ org_slug: input.org, project_slug: input.project ?? null, name: input.name, role: input.role }),
  });
  const body = (await response.json()) as { token?: string; role?: string };
  if (response.status !== 201 || body.role !== input.role)
    throw new Error(`token create answered ${response.status}: ${JSON.stringify(body)}`);
  return body.token!;
}

/** Every file under a folder (recursively), for looking for bytes that must be gone. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...filesUnder(path));
    else found.push(path);
  }
  return found;
}

/** Files under `dir` whose bytes hold `marker`. */
export function filesHolding(dir: string, marker: string): string[] {
  const needle = Buffer.from(marker, 'utf8');
  return filesUnder(dir).filter((path) => readFileSync(path).includes(needle));
}

/** `tracer serve` as a child with any flags (the helpers' spawnService passes a fixed set); its output is kept. */
export async function spawnServe(args: string[], env: Record<string, string>) {
  const { spawn } = await import('node:child_process');
  const { BIN, cleanEnv, tempDir } = await import('../helpers/cli.js');
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', join(tempDir('tracer-serve-'), 'data'), ...args],
    {
      env: { ...cleanEnv(), TRACER_HOME: tempDir('tracer-serve-home-'), NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string | undefined>((resolve) => {
    const timer = setInterval(() => {
      const found = /listening on (http:\/\/\S+?),/.exec(stdout)?.[1];
      if (found) {
        clearInterval(timer);
        resolve(found);
      }
    }, 20);
    void exited.then(() => {
      clearInterval(timer);
      resolve(undefined);
    });
  });
  return {
    url,
    output: () => ({ stdout, stderr }),
    exited,
    /** Resolves once the output (from character `from` of stdout on) matches. */
    async waitFor(pattern: RegExp, timeoutMs = 30_000, from = 0): Promise<string> {
      const started = Date.now();
      for (;;) {
        const match = pattern.exec(stdout.slice(from));
        if (match) return match[0];
        if (Date.now() - started > timeoutMs) throw new Error(`no ${pattern} in the output:\n${stdout}${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Signs in to the team view with a token; the session cookie (`name=value`) to send back. */
export async function signIn(serviceUrl: string, token: string): Promise<string> {
  const response = await fetch(`${serviceUrl}/ui/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${encodeURIComponent(token)}`,
    redirect: 'manual',
  });
  const cookie = response.headers.get('set-cookie');
  if (response.status !== 303 || !cookie) throw new Error(`sign-in answered ${response.status}`);
  return cookie.split(';')[0]!;
}
