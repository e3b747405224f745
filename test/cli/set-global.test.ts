import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootKernel } from '../../src/kernel/boot.js';
import { resolveRemote } from '../../src/engine/session.js';
import { cleanup, sandbox } from '../helpers/cli.js';
import { assertOk, assertOneLineError, printed } from './expect.js';

test.after(cleanup);

const LEGACY = 'tok_LEGACY_0123456789abcdefLMNO';
const LEGACY_TWO = 'tok_LEGACY2_0123456789abcdefPQRS';
const HINT = 'tracer remote set-token <name> --token <TOKEN>';

test('set global writes config.json; unknown keys are refused with the known ones', async () => {
  const { home, run } = sandbox();
  assertOk(await run(['set', 'global', 'telemetry.enabled', 'false']));
  assertOk(await run(['set', 'global', 'global.capture_detached_edits', 'on']));
  const config = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
  assert.equal(config, { telemetry: { enabled: false }, capture_detached_edits: true });
  assert.is(statSync(join(home, 'config.json')).mode & 0o777, 0o600);

  const unknown = await run(['set', 'global', 'colour', 'blue']);
  assertOneLineError(unknown, 'unknown_setting', 2);
  assert.match(unknown.stderr, /known global settings: capture_detached_edits, telemetry\.enabled, auth-token/);
  assertOneLineError(await run(['set', 'global', 'telemetry.enabled']), 'invalid_usage', 2);
});

test('set globaluser and global.auth-token write the legacy slot, print the migration hint, and sync never reads it', async () => {
  const { home, repo, run } = sandbox();
  assertOk(await run(['init']));
  const legacy = await run(['set', 'globaluser', LEGACY]);
  assertOk(legacy);
  assert.ok(printed(legacy).includes(HINT), printed(legacy));
  const readConfig = () => JSON.parse(readFileSync(join(home, 'config.json'), 'utf8'));
  assert.is(readConfig().auth_token, LEGACY);

  const viaKey = await run(['set', 'global', 'global.auth-token', LEGACY_TWO]);
  assertOk(viaKey);
  assert.ok(printed(viaKey).includes(HINT));
  assert.is(readConfig().auth_token, LEGACY_TWO, 'global.auth-token is the same slot');
  assert.is((await run(['config', 'get', '--global', 'auth-token'])).stdout, '****PQRS\n');

  assertOk(await run(['remote', 'add', 'origin', 'https://traces.example.com/acme/web']));
  assertOk(await run(['remote', 'add', 'envbound', 'https://traces.example.com/acme/web', '--token-env', 'UNSET_VAR']));
  const shown = JSON.parse((await run(['remote', 'show', 'origin', '--json'], { env: { TRACER_TOKEN: LEGACY } })).stdout);
  assert.is(shown.token_present, false, 'remote show does not fall back to the legacy slot or TRACER_TOKEN');
  assert.is(shown.token_source, 'none');

  // The path push/pull/sync take: kernel.resolveRemote with purpose "sync".
  const env = { TRACER_TOKEN: LEGACY, TRACER_ADMIN_SECRET: 'admin-secret' };
  const kernel = await bootKernel({ home, cwd: repo, env });
  const resolved = await resolveRemote(kernel, { project: kernel.context.project!, name: 'origin', purpose: 'sync' });
  assert.is(resolved.token, undefined);
  assert.is(resolved.tokenSource, 'none');
  assert.is(resolved.adminSecret, undefined);
  try {
    await resolveRemote(kernel, { project: kernel.context.project!, name: 'envbound', purpose: 'sync' });
    assert.unreachable('an unset env binding must fail rather than fall back');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'token_env_unset');
  }
  assertOneLineError(await run(['set', 'globaluser', 'has space']), 'invalid_token', 2);
  assert.is(readConfig().auth_token, LEGACY_TWO, 'a refused token leaves the slot as it was');
});

test.run();
