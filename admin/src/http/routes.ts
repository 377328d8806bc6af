import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sampleMp4 } from '../domain/sample-mp4.ts';
import { sellersJson } from '../repos/publisher.ts';
import type { Services } from '../services.ts';
import { parseSamplePath } from '../video/providers.ts';
import { serveCabinet } from './cabinet-static.ts';
import { demoPage } from './demo-page.ts';
import { buildOpenApi } from './openapi.ts';
import { readiness } from './readiness.ts';
import { send } from './send.ts';

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
const DOCS: Record<string, URL> = {
  '/docs/api': new URL('../../docs/api.md', import.meta.url),
  '/docs/vast': new URL('../../docs/vast.md', import.meta.url),
};
const GET = ['GET'] as const;
/** What a browser opens by address: HEAD too. */
const PAGE = ['GET', 'HEAD'] as const;

export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  path: string;
  requestId: string;
}

/**
 * One row of the admin's address space. The rows are tried in order; a row whose `serve` answers false
 * did not take the request after all (a REST path the table lacks, a demo page that does not exist) and
 * the next row is tried. What no row takes is a 404.
 */
export interface AdminRoute {
  name: string;
  /** Any method when absent. */
  methods?: readonly string[];
  matches(path: string): boolean;
  serve(r: RouteRequest): Promise<boolean | void> | boolean | void;
}

export interface Doors {
  trpc: (req: IncomingMessage, res: ServerResponse) => void;
  rest: (req: IncomingMessage, res: ServerResponse, url: URL, requestId: string) => Promise<boolean>;
  payments: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;
}

/** The tRPC door and the REST table first; what is neither is static: media, documents, the cabinet, probes. */
export function adminRoutes(svc: Services, doors: Doors, cabinetDir: string | undefined): readonly AdminRoute[] {
  const openApi = JSON.stringify(buildOpenApi(svc.config.server.baseUrl));
  return [
    { name: 'tRPC', matches: (p) => p.startsWith('/trpc/'), serve: ({ req, res }) => doors.trpc(req, res) },
    {
      name: 'REST table',
      matches: () => true,
      serve: ({ req, res, url, requestId }) => doors.rest(req, res, url, requestId),
    },
    {
      name: 'unknown API path',
      matches: (p) => p.startsWith('/api/'),
      serve: ({ res }) => send(res, 404, { error: 'No such API path', code: 'not_found' }),
    },
    {
      name: 'payments',
      matches: (p) => p.startsWith('/pay/') || p.startsWith('/payments/'),
      serve: ({ req, res, path }) => doors.payments(req, res, path),
    },
    {
      name: 'sample video',
      methods: GET,
      matches: (p) => parseSamplePath(p) !== undefined,
      serve: ({ res, path }) => {
        const data = sampleMp4(parseSamplePath(path) as number);
        res.writeHead(200, {
          'content-type': 'video/mp4',
          'content-length': data.length,
          'cache-control': 'public, max-age=86400',
        });
        res.end(data);
      },
    },
    {
      name: 'media',
      methods: GET,
      matches: (p) => p.startsWith('/media/'),
      serve: async ({ res, path }) => {
        const name = path.slice('/media/'.length);
        const data = await svc.media.read(name);
        if (!data) return send(res, 404, { error: 'No such file', code: 'not_found' });
        res.writeHead(200, {
          'content-type': MEDIA_TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
          'content-length': data.length,
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
        });
        res.end(data);
      },
    },
    // The base URL opened in a browser: the cabinet.
    {
      name: 'root',
      methods: PAGE,
      matches: (p) => p === '/',
      serve: ({ res }) => void res.writeHead(302, { location: '/cabinet' }).end(),
    },
    {
      name: 'demo pages',
      methods: GET,
      matches: (p) => p.startsWith('/demo/'),
      serve: ({ res, path, url }) => {
        const demo = demoPage(path, url.searchParams, svc.config.server);
        if (!demo) return false;
        res.writeHead(demo.status, demo.headers);
        res.end(demo.body);
      },
    },
    {
      name: 'cabinet',
      methods: PAGE,
      matches: (p) => p === '/cabinet' || p.startsWith('/cabinet/'),
      serve: ({ res, path }) => serveCabinet(cabinetDir, path, res),
    },
    {
      name: 'OpenAPI',
      methods: GET,
      matches: (p) => p === '/openapi.json',
      serve: ({ res }) => void res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(openApi),
    },
    {
      name: 'documents',
      methods: GET,
      matches: (p) => DOCS[p] !== undefined,
      serve: async ({ res, path }) =>
        void res
          .writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' })
          .end(await readFile(DOCS[path] as URL)),
    },
    {
      name: 'sellers.json',
      methods: GET,
      matches: (p) => p === '/sellers.json',
      serve: async ({ res }) => send(res, 200, await sellersJson(svc), { 'cache-control': 'public, max-age=300' }),
    },
    {
      name: 'liveness',
      methods: GET,
      matches: (p) => p === '/healthz',
      serve: ({ res }) => send(res, 200, { ok: true }),
    },
    {
      name: 'readiness',
      methods: GET,
      matches: (p) => p === '/readyz',
      serve: ({ res }) => {
        const ready = readiness(svc);
        send(res, ready.ok ? 200 : 503, ready);
      },
    },
  ];
}
