import type { DemandOpenRtbVersion } from '@adnet/schemas/demand';
import type { OutgoingBidRequest, SupplyChain, SupplyChainNode } from '@adnet/schemas/openrtb';

/** The version of the IAB SupplyChain object we write. */
export const SCHAIN_VERSION = '1.0';

/**
 * The supply chain of a request we send (IAB SupplyChain 1.0): our node, `asi` our domain (the one our
 * publishers list in ads.txt and sellers.json lists us under), `sid` the publisher's seller id (its id, as
 * in sellers.json), `hp: 1` (we are paid for the impression). Our zones' impressions start the chain, so it
 * is `complete: 1`. A request that reached us with a chain of its own (`upstream`) would keep its nodes and
 * its `complete`, ours appended after them; the exchange traffic is not forwarded to partners today
 * (docs/demand.md, supply chain), so only the supply side's own chains are written.
 */
export function ourSupplyChain(asi: string, sid: string, upstream?: SupplyChain): SupplyChain {
  const node: SupplyChainNode = { asi, sid, hp: 1 };
  if (!upstream) return { complete: 1, ver: SCHAIN_VERSION, nodes: [node] };
  return { complete: upstream.complete === 1 ? 1 : 0, ver: SCHAIN_VERSION, nodes: [...upstream.nodes, node] };
}

/**
 * The request's body for partners of one version: the chain in `source.ext.schain` for 2.5, `source.schain`
 * for 2.6. Everything else is the same request: one body per version, shared by that version's partners.
 */
export function bodyFor(request: OutgoingBidRequest, version: DemandOpenRtbVersion, chain: SupplyChain): string {
  const source =
    version === '2.6' ? { ...request.source, schain: chain } : { ...request.source, ext: { schain: chain } };
  return JSON.stringify({ ...request, source });
}

/** A stored partner's version: 2.6 when it says so, else 2.5 (partners stored before the setting). */
export const versionOf = (p: { openrtb_version?: string }): DemandOpenRtbVersion =>
  p.openrtb_version === '2.6' ? '2.6' : '2.5';
