import { z } from 'zod';

/**
 * The VAST versions the engine writes, and how OpenRTB names them: `imp.video.protocols` and
 * `bid.protocol` use the OpenRTB 2.5 list 5.8 (AdCOM "Creative Subtypes - Audio/Video" in 2.6):
 * 2 VAST 2.0, 3 VAST 3.0, 5 VAST 2.0 Wrapper, 6 VAST 3.0 Wrapper, 7 VAST 4.0, 8 VAST 4.0 Wrapper,
 * 11 VAST 4.1, 12 VAST 4.1 Wrapper, 13 VAST 4.2, 14 VAST 4.2 Wrapper. We write 2.0, 3.0 and 4.0; 4.1 and
 * 4.2 add no version of ours (an imp that lists them with 7 is answered in 4.0, one that lists only them gets no bid).
 */
export const VAST_VERSIONS = ['2.0', '3.0', '4.0'] as const;
export const vastVersionSchema = z.enum(VAST_VERSIONS);
export type VastVersion = z.infer<typeof vastVersionSchema>;

/** `bid.protocol` of an inline answer in each version. */
export const VAST_INLINE_PROTOCOL = { '2.0': 2, '3.0': 3, '4.0': 7 } as const satisfies Record<VastVersion, number>;
/** `bid.protocol` of a wrapper in each version. */
export const VAST_WRAPPER_PROTOCOL = { '2.0': 5, '3.0': 6, '4.0': 8 } as const satisfies Record<VastVersion, number>;

/** The protocol codes a `bid.protocol` of ours may carry. */
export const vastProtocolSchema = z.union([
  z.literal(2),
  z.literal(3),
  z.literal(5),
  z.literal(6),
  z.literal(7),
  z.literal(8),
]);

/**
 * The `v` query value of a zone's VAST URL (`/vast/<subid>.xml?v=2`): absent is 4.0; `2`, `3`, `4` (or
 * `2.0`, `3.0`, `4.0`) name a version; anything else is a 400.
 */
export const VAST_QUERY_VERSIONS: Readonly<Record<string, VastVersion>> = {
  '2': '2.0',
  '2.0': '2.0',
  '3': '3.0',
  '3.0': '3.0',
  '4': '4.0',
  '4.0': '4.0',
};
export const vastQueryVersionSchema = z.enum(Object.keys(VAST_QUERY_VERSIONS) as [string, ...string[]]);

/** The VAST URL of a zone for a version: 4.0 is the plain URL, older versions add `?v=2` or `?v=3`. */
export const zoneVastUrl = (baseUrl: string, subid: string, version: VastVersion = '4.0'): string =>
  `${baseUrl}/vast/${subid}.xml${version === '4.0' ? '' : `?v=${version.slice(0, 1)}`}`;
