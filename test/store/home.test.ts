import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { homePaths, tracerHome } from '../../src/store/home.js';

test('TRACER_HOME wins (made absolute); unset or blank falls back to ~/.tracer (spec §2.1)', () => {
  assert.is(tracerHome({ TRACER_HOME: '/srv/tracer-home' }), '/srv/tracer-home');
  assert.is(tracerHome({ TRACER_HOME: 'relative/home' }), resolve('relative/home'));
  assert.is(tracerHome({}), join(homedir(), '.tracer'));
  assert.is(tracerHome({ TRACER_HOME: '   ' }), join(homedir(), '.tracer'));
});

test('the global tree uses the spec file names', () => {
  // prices.json is tracer's own addition (an organization's token prices, docs/attribution.md); the rest is spec §2.1.
  assert.equal(homePaths('/h'), {
    home: '/h',
    config: '/h/config.json',
    registry: '/h/projects.json',
    plugins: '/h/plugins.json',
    projects: '/h/projects',
    prices: '/h/prices.json',
  });
});

test.run();
