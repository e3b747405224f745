import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/**
 * Debian's chromium (installed by scripts/ensure-chromium.mjs in pretest),
 * headless, with a fresh profile (playwright makes a temporary one per launch) and without its background traffic: this
 * machine may have no route out, and the viewer must need none.
 */
export const CHROMIUM = process.env.TRACER_TEST_CHROMIUM || '/usr/bin/chromium';

export interface Headless {
  browser: Browser;
  context: BrowserContext;
  /** Every URL the context requested, to prove no request left the machine. */
  requests: string[];
  /** Console messages that report a Content Security Policy violation. */
  cspViolations: string[];
  close(): Promise<void>;
}

export async function launchBrowser(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<Headless> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
  const requests: string[] = [];
  const cspViolations: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  context.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return {
    browser,
    context,
    requests,
    cspViolations,
    close: () => browser.close(),
  };
}

/** A browser whose context has visited the local viewer once: that first visit trades the URL's token for the cookie every later page uses. */
export async function launchSignedIn(viewerUrl: string): Promise<Headless> {
  const headless = await launchBrowser();
  const page = await headless.context.newPage();
  await page.goto(viewerUrl);
  await page.close();
  return headless;
}
