// The screenshots in docs/viewer/ and the README: `npm run build && node --import tsx scripts/viewer-screenshots.ts`.
// A store recorded through the real hooks (test/viewer/store.ts), the viewer in this process, headless Chromium.
import { fileURLToPath } from 'node:url';
import { LocalDataSource } from '../src/viewer/local/store-source.js';
import { startViewer } from '../src/viewer/server.js';
import { cleanup } from '../test/helpers/cli.js';
import { launchBrowser } from '../test/viewer/browser.js';
import { loadBlameFile } from '../src/viewer/blame-wiring.js';
import { CLAUDE, recordedStore } from '../test/viewer/store.js';

const out = fileURLToPath(new URL('../docs/viewer/', import.meta.url));
const store = await recordedStore({ hostile: false });
const source = new LocalDataSource(store.home, await loadBlameFile());
const viewer = await startViewer({ host: '127.0.0.1', port: 0, source });
const p = `/p/${encodeURIComponent(store.projectId)}`;
const shots: Array<[string, string, string, 'light' | 'dark']> = [
  ['projects', '/', 'tr[data-project] td:nth-child(4):not(:empty)', 'light'],
  ['project', p, '#commits li.commit', 'light'],
  ['session', `${p}/sessions/${CLAUDE}`, '#session-commits a', 'light'],
  ['commit', `${p}/commits/${store.releaseCommit}`, 'table.diff-table', 'light'],
  ['blame', `${p}/blame/src/greet.ts`, '#blame tr', 'light'],
  ['session-dark', `${p}/sessions/${CLAUDE}`, '#session-commits a', 'dark'],
];
try {
  for (const scheme of ['light', 'dark'] as const) {
    const headless = await launchBrowser({ colorScheme: scheme });
    const first = await headless.context.newPage();
    await first.goto(viewer.url);
    for (const [name, path, ready, wanted] of shots) {
      if (wanted !== scheme) continue;
      const page = await headless.context.newPage();
      await page.goto(`${viewer.origin}${path}`);
      await page.locator(ready).first().waitFor();
      await page
        .locator('#transcript + p', { hasText: 'End of transcript' })
        .waitFor({ timeout: 2_000 })
        .catch(() => undefined);
      await page.waitForLoadState('networkidle');
      // Unfold the first tool call: the edit as a diff with its result is what the session page is for.
      await page.evaluate(`document.querySelector('#transcript details.tool')?.setAttribute('open', '')`);
      // The temporary folders' names would only distract: the screenshots show a repository called "app".
      await page.evaluate(
        `for (const node of document.querySelectorAll('h1, td a, td.path, .crumbs a')) node.textContent = node.textContent.replace(/\\/tmp\\/tracer-repo-\\w+/, '~/src/app').replace(/^tracer-repo-\\w+$/, 'app')`,
      );
      await page.screenshot({ path: `${out}${name}.png`, fullPage: true });
      process.stdout.write(`docs/viewer/${name}.png\n`);
      await page.close();
    }
    await headless.close();
  }
} finally {
  await viewer.close();
  cleanup();
}
