import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { BIN, cleanEnv } from '../helpers/cli.js';

/**
 * `tracer view --no-open` as a user starts it (the built CLI in its own
 * process), and raw HTTP requests to it, with any Host and cookie a hostile
 * page could send.
 */
export const VIEWER_BIN = fileURLToPath(new URL('../../bin/tracer-viewer', import.meta.url));

export interface RunningViewer {
  url: string;
  origin: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

export function startViewerProcess(options: { home: string; cwd: string; args?: string[]; bin?: string }): Promise<RunningViewer> {
  const args = options.bin ? [options.bin, ...(options.args ?? [])] : [BIN, 'view', '--no-open', ...(options.args ?? [])];
  const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...cleanEnv(), TRACER_HOME: options.home, NO_COLOR: '1' } });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`tracer view exited ${code} before printing a URL: ${err}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      const url = out.slice(0, newline);
      resolve({
        url,
        origin: new URL(url).origin,
        child,
        stderr: () => err,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function get(origin: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path, method: 'GET', agent: false, headers: { host: `${hostname}:${port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Trades the printed URL's token for the session cookie, as a browser's first visit does. */
export async function login(viewer: RunningViewer): Promise<string> {
  const url = new URL(viewer.url);
  const answer = await get(viewer.origin, `${url.pathname}${url.search}`);
  const cookie = [answer.headers['set-cookie'] ?? []].flat()[0];
  if (answer.status !== 303 || !cookie) throw new Error(`the token was not traded for a cookie: ${answer.status}`);
  return cookie.split(';', 1)[0]!;
}
