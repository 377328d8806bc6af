import fc from 'fast-check';
import { REST_ROUTES } from '@adnet/admin/rest-routes';
import {
  BAD_UTF8,
  extraHeaders,
  hasControl,
  hostileJson,
  hostileString,
  jsonBody,
  oneIn,
  pathSegment,
  pct,
} from './hostile-input.ts';
import { request } from './hostile-requests.ts';
import type { Family, TokenKind } from './hostile-requests.ts';

// tRPC, the static paths, and requests malformed below HTTP's semantics.

// auth.session is the cabinet's sign-in, on tRPC only.
const PROCEDURES = [...new Set([...REST_ROUTES.map((r) => r.procedure), 'auth.session'])];

export const TRPC_FAMILY: Family = {
  name: '/trpc/:procedure',
  arb: () =>
    fc
      .record({
        procedure: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...PROCEDURES) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              '__proto__',
              'adv.__proto__',
              'constructor',
              'adv.campaigns.constructor',
              'toString',
              'a,b,__proto__',
              '',
            ),
          },
          { weight: 1, arbitrary: hostileString.map((s) => pct(s.slice(0, 200))) },
        ),
        input: hostileJson(['id', 'json', '0', 'campaign_id']),
        batch: fc.boolean(),
        method: fc.constantFrom('GET', 'POST', 'POST', 'PUT'),
        token: fc.constantFrom<TokenKind>('none', 'advertiser', 'publisher', 'admin', 'garbage', 'cabinet'),
        via: fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
        raw: oneIn(3, fc.oneof(jsonBody(undefined), fc.constantFrom(...BAD_UTF8))),
      })
      .map((r) => {
        const payload = r.batch ? { 0: r.input, 1: { json: r.input } } : r.input;
        const text = JSON.stringify(payload) ?? 'null';
        const procs = r.batch ? `${r.procedure},${r.procedure}` : r.procedure;
        const query = `${r.batch ? 'batch=1&' : ''}input=${pct(text.slice(0, 6_000))}`;
        return request({
          family: '/trpc/:procedure',
          via: r.via,
          method: r.method,
          target: r.method === 'GET' ? `/trpc/${procs}?${query}` : `/trpc/${procs}${r.batch ? '?batch=1' : ''}`,
          headers: [['content-type', 'application/json']],
          token: r.token,
          body: r.method === 'GET' ? undefined : (r.raw ?? Buffer.from(text)),
          trpc: true,
        });
      }),
};

export const STATIC_FAMILY: Family = {
  name: 'static paths (/media, /cabinet, /docs, probes, unknown)',
  arb: () =>
    fc
      .tuple(
        fc.constantFrom(
          '/media/',
          '/cabinet/',
          '/docs/',
          '/api/',
          '/',
          '/sellers.json',
          '/openapi.json',
          '/healthz',
          '/engine/healthz',
          '/docs/api',
        ),
        fc.option(
          pathSegment([
            'a.png',
            '..',
            '..%2f..%2fetc%2fpasswd',
            'x.png%00.html',
            'index.html',
            'assets/app.js',
            'assets/%2e%2e/index.html',
            'api',
          ]),
          {
            nil: undefined,
          },
        ),
        fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'DELETE'),
        fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
        extraHeaders,
      )
      .map(([prefix, seg, method, via, headers]) =>
        request({
          family: 'static paths (/media, /cabinet, /docs, probes, unknown)',
          via,
          method,
          target: `${prefix}${seg ?? ''}`,
          headers,
          token: 'none',
        }),
      ),
};

/** Malformed below HTTP's semantics; either server may refuse these in its parser (4xx or a closed connection). */
export const PROTOCOL_FAMILY: Family = {
  name: 'malformed HTTP (request line, headers, framing)',
  arb: () => {
    const target = fc.oneof(
      fc.constantFrom<string | Buffer>(
        '//a:99999/',
        '//[/',
        '//user@host/api/auth/me',
        'http://x/healthz',
        'http://[::1/api',
        '/a b',
        '/..;/api/auth/me',
        '/%2e%2e/%2e%2e/etc/passwd',
        '/api/adv/campaigns#frag',
        '/imp?z=%',
        Buffer.from([0x2f, 0x61, 0x70, 0x69, 0x2f, 0xff, 0xfe, 0x80]),
        Buffer.from([0x2f, 0x69, 0x6d, 0x70, 0x3f, 0x7a, 0x3d, 0xc0, 0xaf]),
        Buffer.concat([Buffer.from('/w/'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('.js')]),
        `/api/${'a'.repeat(9_000)}`,
      ),
      pathSegment([]).map((s) => `/${s}`),
    );
    const head = fc.constantFrom<[string, string | Buffer][]>(
      [],
      [['x-bytes', Buffer.from([0xff, 0xfe, 0x01])]],
      [['x-utf8', Buffer.from('é€𝄞', 'utf8')]],
      [['referer', Buffer.from([0xc0, 0xaf])]],
      [['x-folded', 'a\r\n b']],
      [['x-no-value', '']],
      [['x-big', 'v'.repeat(20_000)]],
      Array.from({ length: 120 }, (_, i) => [`x-h${i}`, String(i)] as [string, string]),
      [
        ['content-length', '5'],
        ['content-length', '6'],
      ],
      [['content-length', '-1']],
      [['content-length', 'abc']],
      [
        ['transfer-encoding', 'chunked'],
        ['content-length', '3'],
      ],
      [['transfer-encoding', 'gzip, chunked']],
      [['transfer-encoding', 'identity']],
      [['expect', '100-continue']],
      [['expect', 'nonsense']],
      [['authorization', Buffer.from('Bearer \u00ff\u00fe', 'latin1')]],
      [['authorization', Buffer.from('Bearer é', 'utf8')]],
      [['cookie', Buffer.from([0x80, 0x81])]],
    );
    return (
      fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'BREW', 'M'.repeat(40)),
          target,
          head,
          fc.option(
            fc.constantFrom(
              Buffer.from('{"a":1}'),
              Buffer.from('0\r\n\r\n'),
              Buffer.from('3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n'),
            ),
            { freq: 2 },
          ),
          fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
        )
        // uWS hands no route a target that is not a path (absolute or asterisk form): it answers nothing and
        // holds the connection to its idle timeout, as for a silent client (docs/security.md).
        // Nor does it answer a target with a space in it, a header holding a control character, or more than 100 headers.
        .filter(
          ([, t, h, , via]) =>
            via === 'admin' ||
            (/^\/[^ ]*$/.test(t.toString('latin1')) && h.length < 90 && !h.some(([, v]) => hasControl(v))),
        )
        .map(([method, t, headers, body, via]) => {
          const framed = headers.some(([k]) => k === 'content-length' || k === 'transfer-encoding');
          // A body that ends as its own headers say it does: a server waiting for the rest of a body is no finding.
          const chunked = headers.some(([k, v]) => k === 'transfer-encoding' && String(v).includes('chunked'));
          const whole = framed ? (chunked ? Buffer.from('0\r\n\r\n') : (body ?? Buffer.from('{"a":1}'))) : body;
          return request({
            family: 'malformed HTTP (request line, headers, framing)',
            via,
            method,
            target: t,
            headers,
            token: 'none',
            body: whole ?? undefined,
            framing: framed ? 'none' : 'length',
            protocolLevel: true,
          });
        })
    );
  },
};
