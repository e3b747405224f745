import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { LocalDataSource } from '../../src/viewer/local/store-source.js';
import { startViewer, type ViewerServer } from '../../src/viewer/server.js';
import { hook, payload } from '../capture/hook-fixtures.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { launchBrowser, launchSignedIn, type Headless } from './browser.js';
import { loadBlameFile } from '../../src/viewer/blame-wiring.js';
import { CLAUDE, CODEX, recordedStore } from './store.js';

/**
 * The pages in headless Chromium against a store built by the real hooks.
 * The server runs in this process (with the real blame module, as tracer view
 * wires it); cli.test.ts covers the same server
 * started by `tracer view`.
 */
const BIG = '5b9e3c1a-8d2f-4e7b-9a6c-0f1e2d3c4b5a';

let store: Awaited<ReturnType<typeof recordedStore>>;
let viewer: ViewerServer;
let headless: Headless;

/** An 8 MB Claude Code transcript of 4,000 messages, snapshotted by the real Stop hook. */
async function bigSession(box: { repo: string; home: string }): Promise<void> {
  const path = join(tempDir('viewer-big-'), 'big.jsonl');
  const lines: string[] = [];
  let bytes = 0;
  for (let index = 0; bytes < 8 * 1024 * 1024 || index < 4_000; index += 1) {
    const role = index % 2 === 0 ? 'user' : 'assistant';
    const message =
      role === 'user'
        ? { role, content: `Question ${index}: ${'lorem ipsum '.repeat(170)}` }
        : {
            id: `m${index}`,
            role,
            model: 'claude-opus-4-1',
            content: [{ type: 'text', text: `Answer ${index}: ${'dolor sit amet '.repeat(140)}` }],
          };
    const line = JSON.stringify({ type: role, sessionId: BIG, uuid: `u${index}`, timestamp: '2025-10-15T10:00:00.000Z', message });
    lines.push(line);
    bytes += line.length + 1;
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  const stop = payload('claude-code', 'Stop', { repo: box.repo, transcript: path }).replaceAll(CLAUDE, BIG);
  await hook('claude-code', 'Stop', stop, { cwd: box.repo, home: box.home });
}

test.before(async () => {
  store = await recordedStore();
  await bigSession(store);
  const source = new LocalDataSource({ home: store.home, cwd: process.cwd(), env: process.env }, await loadBlameFile(process.env));
  viewer = await startViewer({ host: '127.0.0.1', port: 0, source });
  headless = await launchSignedIn(viewer.url);
});

test.after(async () => {
  await headless?.close();
  await viewer?.close();
  cleanup();
});

async function open(path: string): Promise<Page> {
  const page = await headless.context.newPage();
  await page.goto(`${viewer.origin}${path}`);
  return page;
}

const p = () => `/p/${encodeURIComponent(store.projectId)}`;

test('/ lists the project with its figures', async () => {
  const page = await open('/');
  const row = page.locator(`tr[data-project="${store.projectId}"]`);
  await row.locator('td:nth-child(4)', { hasText: '4' }).waitFor();
  assert.is(await row.locator('a').textContent(), store.repo.split('/').pop());
  assert.is(await row.locator('td:nth-child(5)').textContent(), '2');
  await page.close();
});

test('the project page lists sessions newest first and commits with their bars; filters are links', async () => {
  const page = await open(p());
  await page.locator('#sessions li.session').nth(3).waitFor();
  const agents = await page.locator('#sessions li.session .badge.agent').allTextContents();
  assert.equal(agents, ['claude-code', 'cursor', 'codex', 'claude-code']);
  await page.locator('#commits li.commit').nth(1).waitFor();
  assert.equal(await page.locator('#commits .subject').allTextContents(), ['changelog, version and retries', 'greet helper']);
  assert.ok((await page.locator('#commits .bar .bar-ai').count()) === 2);
  await page.locator('select[name=agent] option[value=codex]').waitFor({ state: 'attached' });
  await page.selectOption('select[name=agent]', 'codex');
  await page.waitForURL(/agent=codex/);
  await page.locator('#sessions li.session >> nth=1').waitFor({ state: 'detached' });
  assert.equal(await page.locator('#sessions a.id').allTextContents(), [`${CODEX.slice(0, 23)}…`]);
  // The filtered view is a deep link: opening it gives the same list.
  const again = await open(`${p()}?agent=codex`);
  await again.locator('#sessions li.session').first().waitFor();
  assert.is(await again.locator('#sessions li.session').count(), 1);
  await Promise.all([page.close(), again.close()]);
});

test('a hostile transcript is shown as text: no script runs, no element or javascript: link is made', async () => {
  const page = await open(`${p()}/sessions/${CLAUDE}`);
  await page.locator('#transcript li.msg').filter({ hasText: 'window.__pwned = "script"' }).first().waitFor();
  await page.locator('#session-commits a').first().waitFor();
  assert.is(await page.evaluate('window.__pwned'), undefined);
  assert.is(await page.locator('#app script, #app img, #app iframe').count(), 0);
  assert.is(await page.locator('a[href^="javascript"]').count(), 0);
  assert.ok((await page.locator('#transcript strong', { hasText: 'bold' }).count()) > 0, 'markdown is still rendered');
  assert.match(await page.locator('#transcript').innerText(), /<img src="x" onerror=/);
  assert.is(await page.locator('#session-commits a').first().textContent(), store.greetCommit.slice(0, 10));
  assert.is(await page.locator('#timeline li').count(), 3);
  const call = page.locator('#transcript details.tool').first();
  await call.locator('> summary').click();
  assert.match(await call.innerText(), /File created successfully/);
  await page.close();
});

test('an 8 MB transcript shows its first messages from its first page and loads more on scrolling', async () => {
  const page = await headless.context.newPage();
  const first = page.waitForResponse((response) => response.url().includes('/transcript?'));
  await page.goto(`${viewer.origin}${p()}/sessions/${BIG}`);
  const body = (await (await first).json()) as { entries: unknown[]; next: string | null; position: number; size: number };
  assert.ok(body.size >= 8 * 1024 * 1024);
  assert.ok(body.next !== null && body.position < body.size / 10, 'the first page is a small part of the file');
  await page.locator('#transcript li.msg', { hasText: 'Question 0:' }).waitFor();
  const shown = await page.locator('#transcript li.msg').count();
  assert.is(shown, body.entries.length);
  await page.locator('#transcript li.msg').last().scrollIntoViewIfNeeded();
  await page.locator(`#transcript li.msg >> nth=${shown}`).waitFor();
  await page.close();
});

test('the commit page marks the lines the agent wrote and links the session behind them', async () => {
  const page = await open(`${p()}/commits/${store.greetCommit}`);
  await page.locator('table.diff-table').first().waitFor();
  assert.is(await page.locator('h1').textContent(), 'greet helper');
  assert.is(await page.locator('tr.ai-line').count(), 3);
  assert.is(await page.locator('tr.add:not(.ai-line)').count(), 1);
  assert.match((await page.locator('tr.add:not(.ai-line) td.code').textContent()) ?? '', /reviewed by a person/);
  assert.is(await page.locator('#commit-sessions a').textContent(), CLAUDE);
  await page.close();
});

test('the blame page gives every line its author, ai lines a link to their session', async () => {
  const page = await open(`${p()}/blame/src/greet.ts`);
  await page.locator('#blame tr').first().waitFor();
  assert.is(await page.locator('#blame tr').count(), 4);
  assert.equal(await page.locator('#blame .gutter .badge').allTextContents(), ['ai', 'human']);
  assert.is(await page.locator('#blame .gutter a', { hasText: 'session' }).getAttribute('href'), `${p()}/sessions/${CLAUDE}`);
  await page.close();
});

test('unknown sessions, commits, untracked or outside paths get a clear Not found page', async () => {
  for (const path of [
    `${p()}/sessions/nope`,
    `${p()}/commits/abcdef0123`,
    `${p()}/blame/no/such/file.ts`,
    `${p()}/blame/..%2F..%2Fetc%2Fpasswd`,
    '/p/nope',
    '/elsewhere',
  ]) {
    const page = await open(path);
    await page.locator('h1', { hasText: 'Not found' }).waitFor();
    await page.close();
  }
});

test('keyboard: the links come first in tab order, and / focuses the search box', async () => {
  const page = await open(p());
  await page.locator('#sessions li.session').first().waitFor();
  await page.keyboard.press('Tab');
  assert.is(await page.evaluate('document.activeElement?.textContent'), 'tracer');
  await page.keyboard.press('/');
  assert.is(await page.evaluate('document.activeElement?.name'), 'q');
  await page.close();
});

test('dark colour scheme: the page follows it', async () => {
  const dark = await launchBrowser({ colorScheme: 'dark' });
  try {
    const page = await dark.context.newPage();
    await page.goto(viewer.url);
    await page.locator('h1', { hasText: 'Projects' }).waitFor();
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    assert.is(background, 'rgb(13, 17, 23)');
  } finally {
    await dark.close();
  }
});

test('no request left the viewer, and nothing broke its CSP', () => {
  assert.ok(headless.requests.length > 10);
  assert.equal(
    headless.requests.filter((url) => !url.startsWith(`${viewer.origin}/`)),
    [],
  );
  assert.equal(headless.cspViolations, []);
});

test.run();
