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
