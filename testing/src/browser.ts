import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

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
