import type { Imp } from '@adnet/schemas/openrtb';
import type { VastVersion } from '@adnet/schemas/vast';
import { VAST_QUERY_VERSIONS } from '@adnet/schemas/vast';

/**
 * The VAST version an OpenRTB video imp is answered in: the highest inline version its `protocols` allow
 * among ours (2 VAST 2.0, 3 VAST 3.0, 7 VAST 4.0); 4.0 when it lists none. Wrapper codes (5, 6, 8), 4.1 and
 * 4.2 (11 to 14) and unknown codes allow none of ours on their own: an imp listing only those gets no
 * video bid. One pass over a short array, once per imp (request-context.ts).
 */
export function inlineVastVersion(protocols: readonly number[] | undefined): VastVersion | undefined {
  if (protocols === undefined || protocols.length === 0) return '4.0';
  let best: VastVersion | undefined;
  for (const p of protocols) {
    if (p === 7) return '4.0';
    if (p === 3) best = '3.0';
    else if (p === 2 && best === undefined) best = '2.0';
  }
  return best;
}

/**
 * The VAST version an imp's video is answered in, or undefined when it cannot be ours: it must accept
 * `video/mp4` (when it lists `mimes`) and one of our versions (inlineVastVersion).
 */
export function videoVastVersion(v: NonNullable<Imp['video']>): VastVersion | undefined {
  if (v.mimes !== undefined && v.mimes.length > 0 && !v.mimes.some((m) => m.toLowerCase() === 'video/mp4'))
    return undefined;
  return inlineVastVersion(v.protocols);
}

/**
 * The version a zone's VAST URL asks for with `?v=` (schemas/src/vast.ts): 4.0 when absent; `null` for a
 * value we do not write (the route answers 400).
 */
export function queryVastVersion(v: string | null): VastVersion | null {
  if (v === null) return '4.0';
  return Object.hasOwn(VAST_QUERY_VERSIONS, v) ? (VAST_QUERY_VERSIONS[v] as VastVersion) : null;
}
