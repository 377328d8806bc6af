// What the widget's browser tests share: the publisher's page on its site's own domain, beside an engine and a
// Chromium, and the scripts those pages load. Each test keeps its own page text; only the plumbing lives here.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { desktopContext, launchChromium } from '@adnet/test-support/browser';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

// The IAB-ecosystem parser players use, served to the page as its browser build.
const VAST_CLIENT = join(
  dirname(createRequire(import.meta.url).resolve('@dailymotion/vast-client/package.json')),
  'dist',
  'vast-client.min.js',
);

/** Answers a page's `<script src=".../vast-client.js">` with the players' VAST parser. */
export function serveVastClient(res: ServerResponse): void {
  res.setHeader('content-type', 'text/javascript');
  res.end(readFileSync(VAST_CLIENT));
}

export interface PublisherPage {
  server: Server;
  port: number;
  world: World;
  site: Awaited<ReturnType<World['site']>>;
  /** The page's origin under the site's domain (launchChromium resolves it here), as the engine's zone check needs. */
  base: string;
  /** An advertiser with $100 000 to spend, for the test's campaigns. */
  adv: Account;
}

/**
 * Starts the publisher's web server and makes the world around it: a site whose domain names this server and a
 * funded advertiser. `respond` writes every page (its content type is already text/html); it may use the
 * returned `base` and the engine, both set before the first request comes.
 */
export async function startPublisherPage(
  app: TestApp,
  respond: (url: URL, res: ServerResponse) => void,
): Promise<PublisherPage> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    respond(new URL(req.url ?? '/', 'http://x'), res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const world = await World.create(app);
  const site = await world.site();
  const adv = await world.advertiser(100_000);
  return { server, port, world, site, base: `http://www.${site.domain}:${port}`, adv };
}

/** Chromium and the one desktop context a widget test's visitor browses in; the video files' CDN is not on this
 * network, so it is answered here and a player's request ends at once. */
export async function desktopBrowser(): Promise<{ browser: Browser; context: BrowserContext }> {
  const browser = await launchChromium();
  const context = await desktopContext(browser);
  await context.route(/cdn\.example\.com/, (route) => route.fulfill({ status: 404, body: '' }));
  return { browser, context };
}

/** Ends a browser test's parts, the browser first so no page still calls the servers as they go; any may be unset. */
export async function stopAll(browser?: Browser, page?: PublisherPage, engine?: TestEngine): Promise<void> {
  await browser?.close();
  page?.server.close();
  await engine?.stop();
}
