import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, Option } from 'clipanion';
import { TracerCommand } from '../cli/tracer-command.js';
import { ExitCode, TracerError } from '../core/errors.js';
import { resolveProject } from '../store/project.js';

/**
 * `tracer view` (and `tracer-viewer`): the local browser viewer. The URL is
 * printed as soon as the server listens; nothing is indexed before that, and
 * Fastify and the viewer modules load inside run(), never when agent hooks run
 * tracer.
 */
export class ViewCommand extends TracerCommand {
  static override paths = [['view']];
  static override usage = Command.Usage({
    category: 'Capture',
    description: 'Browse sessions, transcripts, commits and blame in a local web viewer',
    details: `
      Starts a read-only web server on 127.0.0.1 (a free port unless \`--port\`), prints its URL as the first line on stdout, and opens the browser unless \`--no-open\`. The URL carries a one-time token: only a browser that opened it can use the viewer.

      Pages: \`/\` (projects in $TRACER_HOME), \`/p/<project>\` (sessions and commits), \`/p/<project>/sessions/<conversation>\` (the transcript, timeline and commits of a session), \`/p/<project>/commits/<sha>\` (the ledger and the diff with the agent's lines marked) and \`/p/<project>/blame/<path>\`.

      It reads the store and never writes it. Ctrl-C stops it.

      With \`--remote <name>\` it starts no server: it prints the team view of that remote of the current project (\`<base_url>/ui/p/<org>/<project>\` on the \`tracer serve\` it names) and opens it in the browser. The team view asks for a sign-in with an org or project token there; the token is never put in the URL.
    `,
    examples: [
      ['Open the viewer', '$0 view'],
      ['Serve on a fixed port without opening a browser', '$0 view --port 8790 --no-open'],
      ['Open on the project of a repository', '$0 view --project ~/src/app'],
      ["Open the team view of the project's remote origin", '$0 view --remote origin'],
    ],
  });

  port = Option.String('--port', { description: 'Port to listen on (default: any free port)' });
  host = Option.String('--host', {
    description: 'Address to listen on (default 127.0.0.1; anything else is reachable from other machines)',
  });
  noOpen = Option.Boolean('--no-open', false, { description: 'Only print the URL; do not open the browser' });
  projectOption = Option.String('--project', { description: 'Start on this project: its id, or the path of its repository' });
  remote = Option.String('--remote', {
    description: "Open the team view of this remote of the current project (tracer serve's /ui/) instead of a local viewer",
  });

  async run() {
    if (this.remote !== undefined) return this.openRemote(this.remote);
    const { home } = this.context;
    const host = this.host ?? '127.0.0.1';
    const port = parsePort(this.port);
    const startPath = this.projectOption === undefined ? '/' : `/p/${encodeURIComponent(this.projectId(this.projectOption))}`;
    // Only the listening part loads before the URL is printed; the routes and the data source follow.
    const { startViewer } = await import('../viewer/server.js');
    const { isLoopback } = await import('../viewer/security.js');
    let source: import('../viewer/local/store-source.js').LocalDataSource | undefined;
    const makeSource = async () => {
      const [{ LocalDataSource }, { loadBlameFile }] = await Promise.all([
        import('../viewer/local/store-source.js'),
        import('../viewer/blame-wiring.js'),
      ]);
      source = new LocalDataSource({ home, cwd: this.context.cwd, env: this.context.env }, await loadBlameFile(this.context.env));
      return source;
    };
    let viewer;
    try {
      viewer = await startViewer({ host, port, source: makeSource, startPath });
    } catch (error) {
      throw listenFailure(error, host, port);
    }
    if (!isLoopback(host))
      this.context.stderr.write(
        `tracer view: listening on ${host}, reachable from other machines; anyone with the URL's token can read this store.\n`,
      );
    this.print(viewer.url);
    try {
      await viewer.ready;
    } catch (error) {
      await viewer.close();
      throw error;
    }
    // Indexing starts now rather than on the first page: the browser takes a moment to open anyway.
    if (this.projectOption !== undefined) source!.warm(decodeURIComponent(startPath.slice(3)));
    else for (const project of (await source!.projects()).slice(0, 3)) source!.warm(project.id);
    if (!this.noOpen) (await import('../viewer/open-browser.js')).openBrowser(viewer.url);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    this.context.stderr.write(`tracer view: ${signal}, stopping\n`);
    await viewer.close();
    return ExitCode.ok;
  }

  /** `--remote`: the team view's page of this project on the service the remote names; no local server. */
  private async openRemote(name: string): Promise<number> {
    const flags = [
      ['--port', this.port],
      ['--host', this.host],
      ['--project', this.projectOption],
    ] as const;
    const clash = flags.find(([, value]) => value !== undefined);
    if (clash)
      throw new TracerError(
        'remote_view_conflict',
        `--remote opens the team view on the service; ${clash[0]} is for the local viewer. Leave one of them out.`,
        { exitCode: ExitCode.usage },
      );
    const [{ readRemotes, requireRemote }, { parseRemoteUrl }] = await Promise.all([
      import('../store/remotes.js'),
      import('../core/remote-url.js'),
    ]);
    const remote = requireRemote(await readRemotes(this.project().dir), name);
    const parsed = parseRemoteUrl(remote.url);
    const url = `${parsed.base_url}/ui/p/${parsed.org_slug}/${parsed.project_slug}`;
    this.print(url);
    if (!this.noOpen) (await import('../viewer/open-browser.js')).openBrowser(url);
    return ExitCode.ok;
  }

  /** An existing folder is a repository whose project is wanted; anything else is taken as a project id. */
  private projectId(value: string): string {
    const { cwd, home, env } = this.context;
    const path = resolve(cwd, value);
    if (!existsSync(path)) return value;
    return resolveProject({ cwd: path, home, env }).id;
  }
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535)
    throw new TracerError('invalid_port', `--port ${value} is not a port; give a number from 0 to 65535.`, { exitCode: ExitCode.usage });
  return port;
}

function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new TracerError('address_in_use', `Port ${port} on ${host} is already in use; choose another --port or leave it out.`, {
      exitCode: ExitCode.localState,
      cause: error,
    });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES')
    return new TracerError('address_unavailable', `Cannot listen on ${host}:${port}; choose another --host or --port.`, {
      exitCode: ExitCode.localState,
      cause: error,
    });
  return error;
}
