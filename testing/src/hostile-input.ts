import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { makePng } from './images.ts';

// fast-check arbitraries for hostile requests: values that break parsers, JSON that is deep, wide,
// polluting or not JSON at all, bytes that are not UTF-8, query strings and headers that lie, and
// bodies that claim an encoding or a type they do not have. The hostile-input suite draws from them.

/** `arb` once in `n` draws, else undefined. */
export const oneIn = <T>(n: number, arb: Arbitrary<T>): Arbitrary<T | undefined> =>
  fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });

/** Percent-encoding of the UTF-8 bytes (a lone surrogate as U+FFFD): encodeURIComponent throws on those. */
export const pct = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** Strings that have broken parsers, validators, templates, SQL and path handling somewhere. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t\r\n',
  '\u0000',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-0',
  '-1',
  '0',
  '1e309',
  '9'.repeat(400),
  '0x10',
  '1_000',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '{{7*7}}',
  '${7*7}',
  '%s%s%s%n',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '\u202etxt.exe',
  '\ufeff',
  '\ud800',
  '\udfff',
  'a\u2028b\u2029c',
  '🎉👍🏽‍',
  'Ω≈ç√∫˜µ≤',
  '<script>alert(1)</script>',
  ']]><x/>',
  "' OR 1=1 --",
  "') UNION ALL SELECT name FROM system.tables --",
  '{day:Date}',
  'x\r\nSet-Cookie: a=1',
  'javascript:alert(1)',
  'https://a.example/?c={click_id}',
  'http://127.0.0.1:9/x',
  'a'.repeat(5_000),
  // Long runs that make backtracking regular expressions (user agents, emails, domains, URLs) take exponential time.
  `${'a'.repeat(3_000)}@`,
  `a@${'a.'.repeat(2_000)}`,
  `${'-'.repeat(3_000)}x`,
  `${'1.'.repeat(1_500)}x`,
  `${' '.repeat(3_000)}x`,
  `http://${'a'.repeat(3_000)}.`,
  `xn--${'a-'.repeat(1_500)}`,
  `Mozilla/5.0 (${'X; '.repeat(1_000)}`,
] as const;

export const hostileString: Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '%', '\u00e9', '[', '{', '\\'), fc.integer({ min: 1_000, max: 70_000 }))
      .map(([c, n]) => c.repeat(n)),
  },
);

const hostileNumber: Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), Number.MAX_VALUE, Number.MIN_VALUE, 1e-320),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Keys that reach object prototypes or collide with the field names the routes read. */
export const POLLUTING_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  '__defineGetter__',
  'hasOwnProperty',
] as const;

/** A JSON value (as a JS value: `JSON.stringify` writes it) built of hostile parts; `keys` are the names a route reads. */
export function hostileJson(keys: readonly string[] = [], maxDepth = 4): Arbitrary<unknown> {
  const key = fc.oneof(fc.constantFrom(...POLLUTING_KEYS, ...keys, ...(keys.length ? [] : ['a'])), hostileString);
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      hostileString,
      hostileNumber,
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map((pairs) => {
        // Own properties named `__proto__` etc. (a literal assignment would set the prototype instead).
        const o: Record<string, unknown> = {};
        for (const [k, v] of pairs)
          Object.defineProperty(o, k, { value: v, enumerable: true, configurable: true, writable: true });
        return o;
      }),
    ),
  }));
  return value;
}

/** JSON text no JSON.stringify writes: huge numbers, lone surrogates, duplicate keys, pollution, trailing garbage. */
export const oddJsonText: Arbitrary<string> = fc.constantFrom(
  '{"__proto__":{"polluted":true,"isAdmin":true},"constructor":{"prototype":{"polluted":true}}}',
  '{"a":1,"a":2,"a":{"__proto__":null}}',
  '{"n":1e999,"m":-1e999,"k":123456789012345678901234567890,"z":-0.0e-400}',
  '{"s":"\\ud800","t":"\\udfff\\ud800","u":"\\u0000"}',
  '{"a":1}garbage',
  '{"a":1',
  '{a:1}',
  "{'a':1}",
  '[1,2,]',
  '{"a":NaN,"b":Infinity,"c":undefined}',
  '\ufeff{"a":1}',
  '"just a string"',
  '12345',
  'null',
  'true',
  '[]',
  '{}',
  '{"":""}',
  '{"id":{"$gt":""},"email":{"$ne":null}}',
);

/** Nesting and width past what recursive code survives, within the body limits. */
export const deepJsonText: Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1_000, max: 60_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => `{"name":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
  fc
    .integer({ min: 1_000, max: 30_000 })
    .map((n) => `{"imp":[${'0,'.repeat(n)}0],"geo_include":[${'"us",'.repeat(n)}"us"]}`),
  fc.integer({ min: 100, max: 5_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => `{"name":"${'\\u0000'.repeat(Math.floor(n / 6))}"}`),
);

/** Bytes that are not UTF-8: overlong forms, lone continuation bytes, surrogates, truncated sequences. */
export const BAD_UTF8: readonly Buffer[] = [
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xe0, 0x80, 0xaf]),
  Buffer.from([0xf0, 0x80, 0x80, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0x00]),
];

/** Plain bytes of a body (JSON or not), possibly with invalid UTF-8 spliced in. */
export const badUtf8Splice = (text: string): Arbitrary<Buffer> =>
  fc.tuple(fc.nat(), fc.constantFrom(...BAD_UTF8)).map(([at, bad]) => {
    const buf = Buffer.from(text, 'utf8');
    const i = buf.length ? at % buf.length : 0;
    return Buffer.concat([buf.subarray(0, i), bad, buf.subarray(i)]);
  });

/** How a body is put on the wire, and what its headers claim about that. */
export interface Encoded {
  body: Buffer;
  /** Extra headers the encoding claims (content-encoding, a charset). */
  headers: [string, string][];
}

const GZIP_BOMB = gzipSync(Buffer.alloc(8 * 1024 * 1024));

/** The body as sent: as is, gzipped (claimed or not), claimed gzip but plain, UTF-16, a BOM, or a zip bomb. */
export function encoded(body: Buffer): Arbitrary<Encoded> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant<Encoded>({ body, headers: [] }) },
    fc.constantFrom<Encoded>(
      { body: gzipSync(body), headers: [['content-encoding', 'gzip']] },
      { body, headers: [['content-encoding', 'gzip']] },
      { body, headers: [['content-encoding', 'br, gzip, deflate']] },
      { body: gzipSync(body), headers: [] },
      { body: GZIP_BOMB, headers: [['content-encoding', 'gzip']] },
      { body: Buffer.from(body.toString('utf8'), 'utf16le'), headers: [['x-charset', 'utf-16le']] },
      { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]), headers: [] },
      { body: Buffer.concat([Buffer.from([0xfe, 0xff]), body]), headers: [] },
    ),
  );
}

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json; charset=x-unknown',
  'application/json, text/html',
  'application/vnd.api+json',
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=xyz',
  `multipart/form-data; boundary=${'b'.repeat(500)}`,
  'application/xml',
  'application/octet-stream',
  '*/*',
  '',
  ';;;',
  'application/json; boundary=x; charset=utf-8; charset=latin1',
] as const;

/**
 * A header value as HTTP allows one: control characters (but tab) are framing errors, which the
 * protocol family sends on purpose (uWS answers those with nothing at all: see docs/security.md).
 */
const isControl = (code: number) => (code < 0x20 && code !== 0x09) || code === 0x7f;
export const headerSafe = (s: string): string => Array.from(s, (c) => (isControl(c.charCodeAt(0)) ? ' ' : c)).join('');
/** Whether a header value holds a control character (but tab). */
export const hasControl = (v: string | Buffer): boolean => [...Buffer.from(v)].some(isControl);

/** Header values a client may send: overlong, non-ASCII (UTF-8 or bad bytes), lists, empty. */
export const headerValue: Arbitrary<string | Buffer> = fc.oneof(
  hostileString.map(headerSafe),
  fc.constantFrom(...BAD_UTF8.filter((b) => !b.includes(0))).map((b) => Buffer.concat([Buffer.from('x'), b])),
  fc.string({ unit: 'grapheme', maxLength: 8 }).map((s) => Buffer.from(s, 'utf8')),
  fc.integer({ min: 100, max: 3_000 }).map((n) => 'v'.repeat(n)),
);

/** Headers a browser, a proxy or an attacker may add to any request. */
export const extraHeaders: Arbitrary<[string, string | Buffer][]> = fc.array(
  fc.tuple(
    fc.constantFrom(
      'x-forwarded-for',
      'x-real-ip',
      'forwarded',
      'x-request-id',
      'user-agent',
      'accept',
      'accept-encoding',
      'accept-language',
      'origin',
      'referer',
      'cookie',
      'x-country',
      'cf-ipcountry',
      'if-none-match',
      'range',
      'x-http-method-override',
      'x-openrtb-version',
      'x-service-secret',
      'x-service-signature',
      'content-language',
      'x-custom-header',
      'authorization',
    ),
    fc.oneof(
      headerValue,
      fc.constantFrom(
        '1.1.1.1, 2.2.2.2, ::1, garbage',
        'Bearer',
        'Basic YTpi',
        'bytes=0-1,2-3',
        'PATCH',
        '2.5',
        'US',
        'zz',
        '*',
      ),
    ),
  ),
  { maxLength: 4 },
);

/** A path segment: an id, a numeric near-miss, or something a router or parser may trip on, percent-encoded or not. */
export function pathSegment(known: readonly (string | number)[]): Arbitrary<string> {
  return fc.oneof(
    { weight: known.length ? 4 : 0, arbitrary: fc.constantFrom('', ...known.map(String)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '-1',
        '1.5',
        '1e3',
        '0x1f',
        '%201',
        '1%20',
        '01',
        '9007199254740993',
        '99999999999999999999999',
        'NaN',
        'null',
        '',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%00',
        '%ff',
        '%c0%af',
        '%2e%2e%2f',
        '..',
        '.',
        '%',
        '%zz',
        '%25',
        '%u0041',
        'a%2Fb',
        '%e2%80%a8',
        '%ed%a0%80',
      ),
    },
    { weight: 2, arbitrary: hostileString.map((s) => pct(s.slice(0, 300)).replace(/%2F/gi, '/')) },
  );
}

/** A query string: the fields a route reads with hostile values, repeated, bracketed, badly encoded, or huge. */
export function queryString(
  fields: readonly string[],
  known: Readonly<Record<string, readonly string[]>> = {},
): Arbitrary<string> {
  const name = fc.oneof(
    fc.constantFrom(...fields, ...POLLUTING_KEYS, '__proto__[x]', 'constructor[prototype][x]', 'a[]', 'a[0][b]'),
    hostileString,
  );
  const value = (n: string) =>
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc
          .constantFrom(...((Object.hasOwn(known, n) ? known[n] : undefined) ?? ['1']))
          .map((v) => v.replaceAll(' ', '%20')),
      },
      { weight: 2, arbitrary: hostileString.map((s) => pct(s.slice(0, 2_000))) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('%', '%zz', '%ff%fe', '%c0%80', '%ed%a0%80', '%00', '+', '&', '=', '%26%3D', ''),
      },
    );
  const pair = name.chain((n) => value(n).map((v) => `${pct(n).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${v}`));
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(pair, { maxLength: 6 }).map((p) => p.join('&')) },
    fc.constantFrom('&&&', '=', '==&=', '?', '#frag', ';a=1'),
    fc.integer({ min: 100, max: 4_000 }).map((n) => Array.from({ length: n }, (_, i) => `k${i}=${i}`).join('&')),
  );
}

/** A value of the same type at an edge: past what validation checks by type, into ranges, formats and what follows them. */
function edgeOf(value: unknown): Arbitrary<unknown> {
  if (typeof value === 'number')
    return fc.constantFrom(
      0,
      -0,
      1,
      -1,
      0.00001,
      0.000001,
      0.1 + 0.2,
      999.99999,
      1_000_000,
      1e21,
      2 ** 53,
      value * 1000,
    );
  if (typeof value === 'string')
    return fc.constantFrom(
      '',
      ' ',
      `${value} `,
      value.toUpperCase(),
      'a'.repeat(129),
      '𝕏'.repeat(64),
      `${value}\u0000`,
      `=${value}`,
      `${value}${value}`,
    );
  if (Array.isArray(value)) {
    const items = value as unknown[];
    return fc.constantFrom<unknown[]>([], [...items, ...items], Array<unknown>(300).fill(items[0]), [
      items[0],
      'zz',
      'ZZ',
    ]);
  }
  if (typeof value === 'boolean') return fc.constant(!value);
  return fc.constant(null);
}

/**
 * A valid body changed at a few of its paths: set to a same-typed edge value (deep into range and
 * format checks, and through them when they pass), to hostile JSON, deleted, or shadowed by a
 * `__proto__` key.
 */
export function mutated(seed: Record<string, unknown>): Arbitrary<unknown> {
  const at = (path: readonly string[]) =>
    path.reduce<unknown>((node, k) => (node as Record<string, unknown> | undefined)?.[k], seed);
  const op = fc.constantFrom(...pathsOf(seed)).chain((path) =>
    fc.oneof(
      { weight: 3, arbitrary: edgeOf(at(path)).map((value) => ({ path, kind: 'set', value })) },
      { weight: 2, arbitrary: hostileJson(Object.keys(seed), 3).map((value) => ({ path, kind: 'set', value })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('delete', 'pollute').map((kind) => ({ path, kind, value: { polluted: true } })),
      },
    ),
  );
  return fc.array(op, { minLength: 0, maxLength: 3 }).map((ops) => {
    const copy = structuredClone(seed);
    for (const o of ops) apply(copy, o.path, o.kind, o.value);
    return copy;
  });
}

/** A valid query with some fields changed to known alternatives or hostile values, dropped, or joined by strangers. */
export function mutatedQuery(
  seed: Record<string, string>,
  known: Readonly<Record<string, readonly string[]>>,
): Arbitrary<string> {
  const field = ([k, v]: [string, string]) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(`${k}=${pct(v)}`) },
      { weight: 2, arbitrary: fc.constantFrom(...(known[k] ?? [v])).map((alt) => `${k}=${pct(alt)}`) },
      { weight: 1, arbitrary: hostileString.map((s) => `${k}=${pct(s.slice(0, 500))}`) },
      { weight: 1, arbitrary: fc.constant('') },
    );
  return fc
    .tuple(fc.tuple(...Object.entries(seed).map(field)), oneIn(3, queryString(Object.keys(seed), known)))
    .map(([fields, more]) => [...fields, more ?? ''].filter(Boolean).join('&'));
}

function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const here = prefix.length ? [prefix] : [];
  return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
}

function apply(root: unknown, path: readonly string[], kind: string, value: unknown): void {
  let node = root as Record<string, unknown>;
  for (const k of path.slice(0, -1)) {
    const next = node[k];
    if (typeof next !== 'object' || next === null) return;
    node = next as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (last === undefined) return;
  if (kind === 'delete') delete node[last];
  else if (kind === 'pollute')
    Object.defineProperty(node, '__proto__', {
      value: { [last]: value, polluted: true },
      enumerable: true,
      configurable: true,
    });
  else node[last] = value;
}

/** A JSON route's body: its valid example mutated, or hostile JSON, odd JSON text, deep or wide JSON, or bytes. */
export function jsonBody(seed: Record<string, unknown> | undefined): Arbitrary<Buffer> {
  const keys = seed ? Object.keys(seed) : [];
  const text = fc.oneof(
    { weight: seed ? 6 : 0, arbitrary: seed ? mutated(seed).map((v) => JSON.stringify(v)) : fc.constant('{}') },
    { weight: seed ? 1 : 0, arbitrary: fc.constant(JSON.stringify(seed ?? {})) },
    { weight: 3, arbitrary: hostileJson(keys).map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 2, arbitrary: oddJsonText },
    { weight: 1, arbitrary: deepJsonText },
    { weight: 1, arbitrary: fc.constant('') },
  );
  return fc.oneof(
    { weight: 5, arbitrary: text.map((t) => Buffer.from(t, 'utf8')) },
    { weight: 1, arbitrary: text.chain(badUtf8Splice) },
  );
}

/** A url-encoded form: its valid fields with hostile values, repeated fields, bad percent-encoding. */
export function formBody(seed: Record<string, string>): Arbitrary<string> {
  return queryString(Object.keys(seed), Object.fromEntries(Object.entries(seed).map(([k, v]) => [k, [pct(v)]])));
}

/** Files a creative upload may carry: a real image, one that lies about its size or type, or no image at all. */
export const IMAGE_FILES: readonly { data: Buffer; type: string; name: string }[] = [
  { data: makePng(300, 250), type: 'image/png', name: 'a.png' },
  { data: patchPngSize(makePng(2, 2), 65_535, 65_535), type: 'image/png', name: 'huge.png' },
  { data: patchPngSize(makePng(2, 2), 0, 0), type: 'image/png', name: 'zero.png' },
  { data: makePng(300, 250).subarray(0, 40), type: 'image/png', name: 'cut.png' },
  {
    data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    type: 'image/svg+xml',
    name: 'x.svg',
  },
  {
    data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    type: 'image/png',
    name: 'x.png',
  },
  { data: Buffer.from('GIF89a\x01\x00\x01\x00'), type: 'image/gif', name: '../../../../tmp/evil.gif' },
  { data: Buffer.alloc(0), type: 'image/png', name: '' },
  { data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), type: 'image/jpeg', name: 'x\r\n.jpg' },
  { data: Buffer.alloc(70_000, 0x41), type: 'image/png', name: 'big.png' },
  // Near the upload limit (IMAGE_MAX_BYTES, 1 MiB by default) and past it.
  { data: Buffer.concat([makePng(300, 250), Buffer.alloc(1_000_000)]), type: 'image/png', name: 'padded.png' },
  { data: Buffer.alloc(1_400_000, 0x89), type: 'image/png', name: 'over.png' },
];

/** A PNG whose IHDR claims another size (its CRC then no longer matches, as in a crafted file). */
function patchPngSize(png: Buffer, w: number, h: number): Buffer {
  const out = Buffer.from(png);
  out.writeUInt32BE(w, 16);
  out.writeUInt32BE(h, 20);
  return out;
}

interface Part {
  name: string;
  value: Buffer;
  filename?: string;
  type?: string;
}

/** A multipart/form-data body as bytes: fields and files, well formed or broken in the ways parsers meet. */
export function multipartBody(seed: Record<string, string>): Arbitrary<{ body: Buffer; contentType: string }> {
  const fieldNames = [...Object.keys(seed), 'image', 'campaign_id', 'video_url', 'orientation', 'weight'];
  const field: Arbitrary<Part> = fc.record({
    name: fc.oneof(
      fc.constantFrom(...fieldNames),
      hostileString.map((s) => s.replace(/["\r\n]/g, '')),
    ),
    value: fc.oneof(hostileString, fc.constantFrom(...Object.values(seed))).map((s) => Buffer.from(s, 'utf8')),
  });
  const file: Arbitrary<Part> = fc
    .constantFrom(...IMAGE_FILES)
    .map((f) => ({ name: 'image', value: f.data, filename: f.name, type: f.type }));
  const valid: Part[] = Object.entries(seed).map(([name, v]) => ({ name, value: Buffer.from(v) }));
  const parts = fc.oneof(
    fc
      .tuple(fc.subarray(valid), fc.array(field, { maxLength: 3 }), fc.option(file))
      .map(([keep, more, f]) => [...keep, ...more, ...(f ? [f] : [])]),
    fc.array(fc.oneof(field, file), { maxLength: 6 }),
  );
  const breakage = fc.constantFrom(
    'none',
    'none',
    'none',
    'no-close',
    'lf-only',
    'other-boundary',
    'preamble',
    'no-boundary-param',
    'header-garbage',
  );
  return fc
    .tuple(parts, breakage, fc.constantFrom('Xb0undary', 'a', '----WebKitFormBoundary7MA4YWxkTrZu0gW', '"quoted"'))
    .map(([ps, broken, boundary]) => {
      const b = boundary.replace(/"/g, '');
      const nl = broken === 'lf-only' ? '\n' : '\r\n';
      const chunks: Buffer[] = [];
      if (broken === 'preamble') chunks.push(Buffer.from(`${'junk'.repeat(1_000)}${nl}`));
      for (const p of ps) {
        const disposition = `Content-Disposition: form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
        const head = [
          `--${b}`,
          disposition,
          ...(p.type ? [`Content-Type: ${p.type}`] : []),
          ...(broken === 'header-garbage' ? ['X: \u00ff\u0000'] : []),
        ];
        chunks.push(Buffer.from(`${head.join(nl)}${nl}${nl}`, 'latin1'), p.value, Buffer.from(nl));
      }
      if (broken !== 'no-close') chunks.push(Buffer.from(`--${b}--${nl}`));
      const declared = broken === 'other-boundary' ? 'other' : boundary;
      const contentType =
        broken === 'no-boundary-param' ? 'multipart/form-data' : `multipart/form-data; boundary=${declared}`;
      return { body: Buffer.concat(chunks), contentType };
    });
}

/** A signed value changed the ways forgers try: a character flipped, cut, extended, re-encoded, or replaced. */
export function forged(real: readonly string[]): Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...real) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...real), fc.nat(), fc.constantFrom('flip', 'cut', 'extend', 'upper', 'pad', 'encode'))
        .map(([t, at, how]) => {
          const i = t.length ? at % t.length : 0;
          if (how === 'flip') return t.slice(0, i) + (t[i] === 'A' ? 'B' : 'A') + t.slice(i + 1);
          if (how === 'cut') return t.slice(0, i);
          if (how === 'extend') return `${t}AAAA`;
          if (how === 'upper') return t.toUpperCase();
          if (how === 'pad') return `${t}==`;
          return pct(`${t.slice(0, i)}/${t.slice(i)}`);
        }),
    },
    { weight: 2, arbitrary: pathSegment([]) },
  );
}
