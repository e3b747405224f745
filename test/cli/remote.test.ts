import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, sandbox, type RunResult } from '../helpers/cli.js';
import { assertOk, assertOneLineError, printed } from './expect.js';

test.after(cleanup);

const SECRET = 'tok_SECRET_0123456789abcdefWXYZ';
const ROTATED = 'tok_ROTATED_9876543210fedcbaQRST';

/** A sandbox whose every run is recorded, so the test can check that no secret was ever printed. */
async function initializedSandbox() {
  const box = sandbox();
  const outputs: RunResult[] = [];
  const run = async (args: string[], env?: Record<string, string>) => {
    const result = await box.run(args, env ? { env } : {});
    outputs.push(result);
    return result;
  };
  const init = await run(['init']);
  assertOk(init);
  const id = /tracer project (\S+)/.exec(init.stdout)![1]!;
  const dir = join(box.home, 'projects', id);
  const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
  return {
    ...box,
    id,
    run,
    outputs,
    remotes: () => read(join(dir, 'remotes.json')).remotes,
    tokens: () => read(join(box.home, 'config.json')).tokens ?? {},
    projectConfig: () => read(join(dir, 'project-config.json')),
    mode: (path: string) => statSync(path).mode & 0o777,
    remotesPath: join(dir, 'remotes.json'),
    configPath: join(box.home, 'config.json'),
  };
}

test('remote add stores the record, the token ref and the secret where the spec says, with mode 0600', async () => {
  const box = await initializedSandbox();
  const added = await box.run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web', '--token', SECRET]);
  assertOk(added);
  assert.equal(box.remotes().origin, {
    url: 'https://traces.example.com/acme/web',
    org_slug: 'acme',
    project_slug: 'web',
    base_url: 'https://traces.example.com',
    auth: { token_ref: `global:${box.id}::origin` },
  });
  assert.equal(box.tokens(), { [`${box.id}::origin`]: SECRET });
  assert.is(box.mode(box.remotesPath), 0o600);
  assert.is(box.mode(box.configPath), 0o600);
  assert.not.ok(readFileSync(box.remotesPath, 'utf8').includes(SECRET), 'the secret never reaches remotes.json');

  const gateway = await box.run(['remote', 'add', 'work', 'http://127.0.0.1:8080/gw/acme/web-2', '--token-env', 'WORK_TOKEN']);
  assertOk(gateway);
  assert.equal(box.remotes().work, {
    url: 'http://127.0.0.1:8080/gw/acme/web-2',
    org_slug: 'acme',
    project_slug: 'web-2',
    base_url: 'http://127.0.0.1:8080',
    auth: { token_ref: 'env:WORK_TOKEN' },
  });
  assert.equal(Object.keys(box.tokens()), [`${box.id}::origin`], '--token-env stores no secret');

  const bare = await box.run(['remote', 'add', 'plain', 'https://traces.example.com/acme/web']);
  assertOk(bare);
  assert.equal(box.remotes().plain.auth, undefined);
  assert.match(bare.stdout, /token: none/);

  assertOneLineError(await box.run(['remote', 'add', 'origin', 'https://other.example.com/acme/web']), 'remote_exists', 2);
  assert.is(box.remotes().origin.url, 'https://traces.example.com/acme/web', 'a refused add changes nothing');
  for (const output of box.outputs) assert.not.ok(printed(output).includes(SECRET), `secret printed by: ${printed(output)}`);
});

test('remote add refuses bad URLs with the grammar, bad names and conflicting token flags, writing nothing', async () => {
  const box = await initializedSandbox();
  const badUrls = [
    'https://traces.example.com',
    'https://traces.example.com/',
    'https://traces.example.com/Acme/web',
    'https://traces.example.com/acme/-web',
    'https://traces.example.com/acme/web/extra',
    'https://traces.example.com/api/acme/web',
  ];
  for (const url of badUrls) {
    const result = await box.run(['remote', 'add', 'origin', url, '--token', SECRET]);
    assertOneLineError(result, 'invalid_remote_url', 2);
    assert.ok(result.stderr.includes('<scheme>://<host>[:port]/<org_slug>/<project_slug>'), `quotes the grammar for ${url}`);
    assert.ok(result.stderr.includes('/gw/<org_slug>/<project_slug>'), `quotes the gateway shape for ${url}`);
  }
  const both = await box.run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web', '--token', SECRET, '--token-env', 'X']);
  assertOneLineError(both, 'invalid_usage', 2);
  assertOneLineError(await box.run(['remote', 'add', 'bad name', 'https://traces.example.com/acme/web']), 'invalid_remote_name', 2);
  assertOneLineError(
    await box.run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web', '--token-env', '1BAD']),
    'invalid_env_var',
    2,
  );
  assertOneLineError(
    await box.run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web', '--token', 'has space']),
    'invalid_token',
    2,
  );
  assertOneLineError(await box.run(['remote', 'add', 'origin']), 'invalid_usage', 2);

  const list = await box.run(['remote', 'list', '--json']);
  assertOk(list);
  assert.equal(JSON.parse(list.stdout), [], 'nothing was written');
  for (const output of box.outputs) assert.not.ok(printed(output).includes(SECRET), `secret printed by: ${printed(output)}`);
});

test('show and list mask the token; set-token rotates; set-url keeps the binding', async () => {
  const box = await initializedSandbox();
  assertOk(await box.run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web', '--token', SECRET]));

  const shown = await box.run(['remote', 'show', 'origin']);
  assertOk(shown);
  assert.match(shown.stdout, /org_slug:\s+acme/);
  assert.match(shown.stdout, /project_slug:\s+web/);
  assert.match(shown.stdout, /base_url:\s+https:\/\/traces\.example\.com/);
  assert.ok(shown.stdout.includes(`token_ref:    global:${box.id}::origin`));
  assert.match(shown.stdout, /token:\s+\*\*\*\*WXYZ \(from config\.json\)/);

  const json = JSON.parse((await box.run(['remote', 'show', 'origin', '--json'])).stdout);
  assert.is(json.token_ref, `global:${box.id}::origin`);
  assert.is(json.token_source, 'config.json');
  assert.is(json.token, '****WXYZ');
  assert.is(json.default, true, 'the sole remote is the default');

  assertOk(await box.run(['remote', 'set-token', 'origin', '--token', ROTATED]));
  assert.equal(box.tokens(), { [`${box.id}::origin`]: ROTATED });

  assertOk(await box.run(['remote', 'set-token', 'origin', '--token-env', 'ORIGIN_TOKEN']));
  assert.equal(box.remotes().origin.auth, { token_ref: 'env:ORIGIN_TOKEN' });
  assert.equal(box.tokens(), {}, 'switching to an env binding deletes the stored secret');
  const fromEnv = JSON.parse((await box.run(['remote', 'show', '--json'], { ORIGIN_TOKEN: SECRET })).stdout);
  assert.is(fromEnv.token_source, 'env:ORIGIN_TOKEN');
  assert.is(fromEnv.token, '****WXYZ');
  const unsetEnv = JSON.parse((await box.run(['remote', 'show', '--json'])).stdout);
  assert.is(unsetEnv.token_present, false);
  assert.is(unsetEnv.token, null);

  assertOneLineError(await box.run(['remote', 'set-token', 'origin']), 'invalid_usage', 2);
  assertOneLineError(await box.run(['remote', 'set-token', 'origin', '--token', SECRET, '--token-env', 'X']), 'invalid_usage', 2);
  assertOneLineError(await box.run(['remote', 'set-token', 'nope', '--token', SECRET]), 'remote_not_found', 2);
  assert.equal(box.tokens(), {}, 'no secret stored for a remote that does not exist');

  assertOk(await box.run(['remote', 'set-url', 'origin', 'https://gw.example.com/gw/acme/web2']));
  assert.equal(box.remotes().origin, {
    url: 'https://gw.example.com/gw/acme/web2',
    org_slug: 'acme',
    project_slug: 'web2',
    base_url: 'https://gw.example.com',
    auth: { token_ref: 'env:ORIGIN_TOKEN' },
  });
  assertOneLineError(await box.run(['remote', 'set-url', 'origin', 'https://gw.example.com']), 'invalid_remote_url', 2);
  assert.is(box.remotes().origin.url, 'https://gw.example.com/gw/acme/web2');

  const list = await box.run(['remote', 'list']);
  assertOk(list);
  assert.match(list.stdout, /^\* origin\s+https:\/\/gw\.example\.com\/gw\/acme\/web2\s+token: env:ORIGIN_TOKEN$/m);
  for (const output of box.outputs) {
    assert.not.ok(printed(output).includes(SECRET), `secret printed by: ${printed(output)}`);
    assert.not.ok(printed(output).includes(ROTATED), `rotated secret printed by: ${printed(output)}`);
  }
});

test('rename carries the token and the default; remove deletes the token and clears the default', async () => {
  const box = await initializedSandbox();
  assertOk(await box.run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web', '--token', SECRET, '--default']));
  assertOk(await box.run(['remote', 'add', 'backup', 'https://backup.example.com/acme/web', '--token', ROTATED]));
  assert.is(box.projectConfig().remote.default, 'origin');

  const renamed = await box.run(['remote', 'rename', 'origin', 'prod']);
  assertOk(renamed);
  assert.equal(Object.keys(box.remotes()).sort(), ['backup', 'prod']);
  assert.equal(box.remotes().prod.auth, { token_ref: `global:${box.id}::prod` });
  assert.equal(box.tokens(), { [`${box.id}::prod`]: SECRET, [`${box.id}::backup`]: ROTATED });
  assert.is(box.projectConfig().remote.default, 'prod');
  assert.is(JSON.parse((await box.run(['remote', 'show', '--json'])).stdout).name, 'prod', 'show without a name shows the default');

  assertOneLineError(await box.run(['remote', 'rename', 'prod', 'backup']), 'remote_exists', 2);
  assertOneLineError(await box.run(['remote', 'rename', 'ghost', 'other']), 'remote_not_found', 2);
  assertOneLineError(await box.run(['remote', 'rename', 'prod', '../x']), 'invalid_remote_name', 2);
  assert.equal(Object.keys(box.remotes()).sort(), ['backup', 'prod']);

  assertOk(await box.run(['remote', 'remove', 'prod']));
  assert.equal(Object.keys(box.remotes()), ['backup']);
  assert.equal(box.tokens(), { [`${box.id}::backup`]: ROTATED });
  assert.is(box.projectConfig().remote?.default, undefined);
  assert.is(JSON.parse((await box.run(['remote', 'show', '--json'])).stdout).name, 'backup', 'the sole remote is the default again');
  assertOneLineError(await box.run(['remote', 'remove', 'prod']), 'remote_not_found', 2);

  for (const output of box.outputs) {
    assert.not.ok(printed(output).includes(SECRET), `secret printed by: ${printed(output)}`);
    assert.not.ok(printed(output).includes(ROTATED), `secret printed by: ${printed(output)}`);
  }
});

test('default remote: remote.default, else the sole remote, else an error listing the remotes', async () => {
  const box = await initializedSandbox();
  assertOneLineError(await box.run(['remote', 'show']), 'no_remote', 2);
  assertOk(await box.run(['remote', 'add', 'a', 'https://a.example.com/acme/web']));
  assertOk(await box.run(['remote', 'add', 'b', 'https://b.example.com/acme/web']));

  const ambiguous = await box.run(['remote', 'show']);
  assertOneLineError(ambiguous, 'remote_ambiguous', 2);
  assert.match(ambiguous.stderr, /\(a, b\)/);
  assert.match(ambiguous.stderr, /tracer config set remote\.default <name>/);
  assert.equal(
    JSON.parse((await box.run(['remote', 'list', '--json'])).stdout).map((view: { default: boolean }) => view.default),
    [false, false],
  );

  assertOneLineError(await box.run(['config', 'set', 'remote.default', 'c']), 'remote_not_found', 2);
  assertOk(await box.run(['config', 'set', 'remote.default', 'b']));
  assertOneLineError(await box.run(['config', 'set', 'remote.default', 'c']), 'remote_not_found', 2);
  assert.is(box.projectConfig().remote.default, 'b', 'a refused default leaves the previous one in place');
  assert.is(JSON.parse((await box.run(['remote', 'show', '--json'])).stdout).name, 'b');
  assert.match((await box.run(['remote', 'list'])).stdout, /^\* b /m);
});

test.run();
