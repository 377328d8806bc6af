import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';

// A person's desktop Chrome: headless Chromium's own user agent is refused as a bot by the click rules.
export const CHROME_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

/** A browser context the engine takes for a person's desktop Chrome, so its clicks and beacons count. */
export function desktopContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ userAgent: CHROME_UA, ...options });
}

/**
 * Debian's Chromium, headless, with nothing reaching outside this machine (no updates, sync or QUIC).
 * Host names under `.example` and `.test` resolve to this machine, so a test can serve a publisher's
 * page under its site's own domain (the engine checks a widget's page against its zone's site).
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP *.example 127.0.0.1, MAP *.test 127.0.0.1',
    ],
  });
}
