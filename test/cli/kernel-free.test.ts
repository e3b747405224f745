import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, git, sandbox } from '../helpers/cli.js';
import { loadedFiles, modulesIn } from '../helpers/build-meta.js';

// Issue 30: the plugin kernel is booted by the commands that use it, on first use. The commands
// that use no plugin start without it: the built binary loads none of the kernel's modules, nor any
// built-in plugin, for them (the files it loads, mapped to their source modules by dist/meta.json).
test.after(cleanup);

test('remote, rule, config, blame, show, stats, context, ci, the git hook commands and the hook load nothing of the kernel', async () => {
  const box = sandbox();
  assert.is((await box.run(['init', '--agents', 'none'])).code, 0);
  assert.is((await box.run(['remote', 'add', 'origin', 'http://127.0.0.1:9/acme/web'])).code, 0);
  writeFileSync(join(box.repo, 'a.txt'), 'one\ntwo\n');
  git(box.repo, 'add', 'a.txt');
  git(box.repo, 'commit', '-q', '-m', 'a');
  const lines = [
    ['remote', 'list'],
    ['remote', 'show', 'origin'],
    ['rule', 'list'],
    ['rule', 'add', 'house-style', '--text', 'Use tabs.'],
    ['rule', 'remove', 'house-style'],
    ['config', 'list'],
    ['token', 'create', '--help'],
    ['blame', 'a.txt'],
    ['show'],
    ['stats', 'HEAD~1..HEAD'],
    ['context'],
    ['ci', 'github', '--url', 'http://127.0.0.1:9/acme/web', '--print'],
    ['commit-link'],
    ['hook', '--fold'],
    ['--version'],
  ];
  for (const args of lines) {
    const modules = modulesIn(loadedFiles(args, { cwd: box.repo, home: box.home }));
    assert.ok(modules.includes('src/cli/registry.ts'), `${args.join(' ')}: the build's modules were mapped`);
    // The plugin lists (kernel/plugin-list.ts) are read by the agents' hooks too; the kernel is its hook bus, its boot
    // and the plugins, less the agents' own modules for tracer rule, which reads where each agent keeps its rules.
    const agents = args[0] === 'rule' ? '(?!agents\\/)' : '';
    const kernel = modules.filter((module) =>
      new RegExp(`^src/(kernel/(kernel|boot|hooks|families)\\.ts|plugins/${agents})|tapable`).test(module),
    );
    assert.equal(kernel, [], `tracer ${args.join(' ')} loads nothing of the kernel`);
  }
  // The test can fail: a command that uses the plugins loads them.
  const status = modulesIn(loadedFiles(['status'], { cwd: box.repo, home: box.home }));
  assert.ok(status.includes('src/kernel/kernel.ts') && status.includes('src/plugins/traces.ts'), 'status boots the kernel');
});

test.run();
