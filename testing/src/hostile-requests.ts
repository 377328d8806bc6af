import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import type { ServedWorld } from './hostile-world.ts';

// What every generated request is and how it prints. The families, one per surface of the product: the
// engine's public paths (hostile-engine-requests.ts); every REST route of the admin, directly and through the
// engine's proxy, creative uploads and the tracker postback (hostile-admin-requests.ts); tRPC, the static
// paths and requests malformed below HTTP's semantics (hostile-protocol-requests.ts).

/**
 * Which bearer token a request carries; resolved when it is sent, since tokens are re-issued after a sign-out.
 * `cabinet`: the advertiser's token in the session cookie, with the cabinet's headers, as the cabinet sends it.
 */
export type TokenKind = 'none' | 'garbage' | 'malformed' | 'advertiser' | 'publisher' | 'admin' | 'cabinet';

export interface HostileRequest {
  /** The route template it aims at, e.g. `GET /openrtb/win/:ticket` or `POST /api/adv/campaigns`. */
  family: string;
  via: 'engine' | 'admin';
  method: string;
  target: string | Buffer;
  headers: [string, string | Buffer][];
  token: TokenKind;
  body?: Buffer;
  framing?: 'length' | 'chunked' | 'none';
  protocolLevel?: boolean;
  trpc?: boolean;
}

/** The hostile accounts' own resources (their ids reach past 404s into validation) and the world's (their ids draw 403s). */
export interface HostileContext {
  world: ServedWorld;
  worldCreativeIds: number[];
  own: {
    advertiserId: number;
    campaignId: number;
    videoCampaignId: number;
    creativeId: number;
    siteId: number;
    zoneId: number;
    partnerId: number;
  };
  /** The hostile publisher's native zone, serving the hostile advertiser's campaign. */
  ownZone: string;
  /** Clicks on the hostile advertiser's ads: postbacks signed with its secret for them reach a conversion. */
  ownClickIds: string[];
  advertiserSecret: string;
  today: string;
}

const excerpt = (b: string | Buffer, n: number) => {
  const s = Buffer.isBuffer(b) ? b.toString('latin1') : b;
  return JSON.stringify(s.length > n ? `${s.slice(0, n)}…(${s.length} bytes)` : s);
};

/** How fast-check prints a request in a failure: short, with the sizes of what it cut. */
export function describeRequest(r: HostileRequest): string {
  const headers = r.headers.map(([k, v]) => `${k}: ${excerpt(v, 60)}`).join('; ');
  return `${r.family} via ${r.via}: ${r.method} ${excerpt(r.target, 200)} token=${r.token} [${headers}] body=${r.body ? excerpt(r.body, 300) : 'none'}${r.framing && r.framing !== 'length' ? ` framing=${r.framing}` : ''}`;
}

export function request(r: HostileRequest): HostileRequest {
  Object.defineProperty(r, fc.toStringMethod, { value: () => describeRequest(r), enumerable: false });
  return r;
}

export const framing = fc.constantFrom<'length' | 'chunked'>('length', 'length', 'length', 'length', 'chunked');
export const withQuery = (path: string, query: string | undefined) => (query ? `${path}?${query}` : path);
export const anyMethod = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

export interface Family {
  name: string;
  arb: (ctx: HostileContext) => Arbitrary<HostileRequest>;
}
