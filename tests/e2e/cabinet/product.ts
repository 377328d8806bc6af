// The whole product for the cabinet's browser tests: Redis, the admin with embedded ClickHouse
// and the built cabinet, an engine that owns the public URL and forwards to the admin (as
// `pnpm start` runs them), a site the publisher owns, and headless Chromium.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ConversionStore } from '@adnet/admin/conversion-store';
import { PostbackWorker } from '@adnet/admin/postback-worker';
import { startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import type { AdminPart } from '@adnet/admin';
import { freePort, startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { startEngine } from '@adnet/test-support/engine';
import { ingestAll } from '@adnet/test-support/ingest-all';
import type { TestEngine } from '@adnet/test-support/engine';
import { CABINET_DIST, buildCabinet } from '@adnet/cabinet/build';
import { CHROME_UA, launchChromium } from '@adnet/test-support/browser';

export const SCREENS = new URL('../../../.tmp/cabinet-screens/', import.meta.url).pathname;
export { CHROME_UA };

export interface Product {
  redis: TestRedis;
  app: TestApp;
  engine: TestEngine;
  /** The public base URL (the engine), where /cabinet is served. */
  base: string;
  browser: Browser;
  /** The publisher's web server: any `*.test` host name resolves to it for site verification. */
  site: { base: string; html: Map<string, string>; requests: string[] };
  newContext(viewport?: { width: number; height: number }): Promise<BrowserContext>;
  ingest(): Promise<void>;
  /** One pass of the outgoing-postback worker, with its clock far enough ahead that every attempt is due. */
  sendPostbacks(): Promise<void>;
  stop(): Promise<void>;
}

export interface ProductOptions {
  /** More of the admin's settings. */
  env?: Record<string, string>;
  /** The admin's parts (default: the ingester and the video poller). */
  parts?: readonly AdminPart[];
}

export async function startProduct(opts: ProductOptions = {}): Promise<Product> {
  mkdirSync(SCREENS, { recursive: true });
  await buildCabinet();
  const html = new Map<string, string>();
  const requests: string[] = [];
  const siteServer: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    res.setHeader('content-type', 'text/html');
    res.end(html.get(`${(req.headers.host ?? '').split(':')[0]}${path}`) ?? html.get(path) ?? '<h1>Nothing here</h1>');
  });
  await new Promise<void>((r) => siteServer.listen(0, '127.0.0.1', r));
  const sitePort = (siteServer.address() as AddressInfo).port;
  const publicPort = await freePort();
  const base = `http://127.0.0.1:${publicPort}`;
  const redis = await startRedis();
  const app = await startApp(
    redis.url,
    {
      PUBLIC_BASE_URL: base,
      VERIFY_ALLOW_LOOPBACK: 'true',
      VERIFY_STATIC_HOSTS: '*.test=127.0.0.1',
      VERIFY_HTTP_PORT: String(sitePort),
      VERIFY_HTTPS_PORT: String(await freePort()),
      VERIFY_TIMEOUT_MS: '1000',
      POSTBACK_ALLOW_LOOPBACK: 'true',
      VIDEO_LOCAL_DELAY_MS: '1500',
      VIDEO_POLL_INTERVAL_MS: '300',
      INGEST_FLUSH_MS: '100',
      ...opts.env,
    },
    // As `pnpm start` runs them; the postback worker stays out: `sendPostbacks` drives it on its own clock.
    { clickhouse: true, cabinetDir: CABINET_DIST, parts: opts.parts ?? ['ingester', 'video'] },
  );
  const engine = await startEngine(
    redis.url,
    { PORT: String(publicPort), PUBLIC_BASE_URL: base },
    { adminUpstream: app.base },
  );
  const browser = await launchChromium();
  return {
    redis,
    app,
    engine,
    base,
    browser,
    site: { base: `http://127.0.0.1:${sitePort}`, html, requests },
    async newContext(viewport = { width: 1280, height: 900 }) {
      const context = await browser.newContext({ userAgent: CHROME_UA, viewport });
      // Fail a step in seconds, well inside the test's own timeout, so the report names it.
      context.setDefaultTimeout(10_000);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      return context;
    },
    ingest: () => ingestAll(app, [engine.engine]),
    sendPostbacks: () =>
      new PostbackWorker({
        svc: app.svc,
        store: new ConversionStore(app.svc.redis),
        now: () => Date.now() + 3_600_000,
      }).runOnce(),
    async stop() {
      await browser.close();
      await engine.stop();
      siteServer.close();
      await app.close();
      await redis.stop();
    },
  };
}

/** A full-page screenshot after checking that each expected text is visible on the page. */
export async function screenshot(page: Page, name: string, expected: string[]): Promise<void> {
  for (const text of expected)
    await page.getByText(text, { exact: false }).first().waitFor({ state: 'visible', timeout: 10_000 });
  await page.screenshot({ path: `${SCREENS}${name}.png`, fullPage: true });
}

/** What the page put on the clipboard. */
export const clipboard = (page: Page): Promise<string> => page.evaluate<string>('navigator.clipboard.readText()');

/** A fresh browser context signed in as `who` (password `password-123`, as support/admin.ts makes accounts), on its landing page. */
export async function signedIn(p: Product, who: { email: string }, landing: RegExp): Promise<Page> {
  const page = await (await p.newContext()).newPage();
  await page.goto(`${p.base}/cabinet/signin`);
  const f = page.getByRole('form', { name: 'Sign in' });
  await f.getByLabel('Email').fill(who.email);
  await f.getByLabel('Password').fill('password-123');
  await f.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(landing);
  return page;
}

/** A page of a fresh context already holding `token`'s session: a test that is not about signing in skips the form. */
export async function sessionPage(p: Product, token: string): Promise<Page> {
  const context = await p.newContext();
  await useSession(context, p.base, token);
  return context.newPage();
}

/** The session token the page's browser holds: only in the HttpOnly cookie, which the test (not the page) can read. */
export async function sessionToken(page: Page): Promise<string> {
  return (await page.context().cookies()).find((c) => c.name === 'adnet_session')?.value ?? '';
}

/** Gives a browser context the session of a token, as the cabinet's sign-in would have set it. */
export async function useSession(context: BrowserContext, base: string, token: string): Promise<void> {
  await context.addCookies([
    { name: 'adnet_session', value: token, url: `${base}/trpc`, httpOnly: true, sameSite: 'Strict' },
  ]);
}

/** What the page's own script can see of the session: no token may be among it. */
export async function scriptVisibleStorage(page: Page): Promise<string> {
  return page.evaluate<string>(
    'JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie })',
  );
}
