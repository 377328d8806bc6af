import type { ElementRule, Particle } from './vast-grammar.ts';
import { any, one, optional, str, unchecked, uri, withId } from './vast-grammar.ts';

// The IAB VAST 2.0.1 schema (vast_2.0.1.xsd) and VAST 3.0 draft schema (vast3_draft.xsd), for the elements
// our documents and players rely on. Neither has a namespace. Unlike 4.0: InLine names AdTitle right after
// AdSystem and allows one Error; a wrapper's VASTAdTagURI comes second and its Impression takes no id; its
// Creatives are required; Linear starts with Duration and ends with MediaFiles; a Creative holds exactly one
// of Linear, CompanionAds, NonLinearAds, names its ad with AdID, and has no UniversalAdId.

type Legacy = '2.0' | '3.0';

const TRACKING_EVENTS_2 = [
  'creativeView',
  'start',
  'midpoint',
  'firstQuartile',
  'thirdQuartile',
  'complete',
  'mute',
  'unmute',
  'pause',
  'rewind',
  'resume',
  'fullscreen',
  'expand',
  'collapse',
  'acceptInvitation',
  'close',
] as const;
// 3.0 keeps every 2.0 event and adds these.
const TRACKING_EVENTS: Record<Legacy, readonly string[]> = {
  '2.0': TRACKING_EVENTS_2,
  '3.0': [...TRACKING_EVENTS_2, 'exitFullscreen', 'skip', 'progress', 'acceptInvitationLinear', 'closeLinear'],
};

function rules(version: Legacy): ElementRule {
  const three = version === '3.0';
  const trackingEvents: ElementRule = {
    attributes: {},
    content: {
      kind: 'sequence',
      particles: [
        any(
          'Tracking',
          uri({
            event: { type: TRACKING_EVENTS[version], required: true },
            ...(three ? { offset: { type: 'offset' as const } } : {}),
          }),
        ),
      ],
    },
  };
  const mediaFile: ElementRule = {
    attributes: {
      id: { type: 'string' },
      delivery: { type: ['streaming', 'progressive'], required: true },
      type: { type: 'string', required: true },
      bitrate: { type: 'integer' },
      width: { type: 'integer', required: true },
      height: { type: 'integer', required: true },
      scalable: { type: 'boolean' },
      maintainAspectRatio: { type: 'boolean' },
      apiFramework: { type: 'string' },
      ...(three
        ? {
            minBitrate: { type: 'integer' as const },
            maxBitrate: { type: 'integer' as const },
            codec: { type: 'string' as const },
          }
        : {}),
    },
    text: 'uri',
  };
  const clickTracking = any('ClickTracking', uri(withId));
  const customClick = any('CustomClick', uri(withId));
  const linearInline: ElementRule = {
    attributes: three ? { skipoffset: { type: 'offset' } } : {},
    content: {
      kind: 'sequence',
      particles: [
        ...(three ? [optional('Icons', unchecked), optional('CreativeExtensions', unchecked)] : []),
        one('Duration', { attributes: {}, text: 'time' }),
        optional('TrackingEvents', trackingEvents),
        optional('AdParameters', three ? { attributes: { xmlEncoded: { type: 'boolean' } }, text: 'string' } : str),
        optional('VideoClicks', {
          attributes: {},
          content: { kind: 'sequence', particles: [optional('ClickThrough', uri(withId)), clickTracking, customClick] },
        }),
        optional('MediaFiles', {
          attributes: {},
          content: { kind: 'sequence', particles: [any('MediaFile', mediaFile, 1)] },
        }),
      ],
    },
  };
  const linearWrapper: ElementRule = {
    attributes: {},
    content: {
      kind: 'sequence',
      particles: [
        ...(three ? [optional('CreativeExtensions', unchecked), optional('Icons', unchecked)] : []),
        optional('TrackingEvents', trackingEvents),
        optional('VideoClicks', {
          attributes: {},
          content: { kind: 'sequence', particles: three ? [clickTracking, customClick] : [clickTracking] },
        }),
      ],
    },
  };
  const creative = (linear: ElementRule): ElementRule => ({
    attributes: { id: { type: 'string' }, sequence: { type: 'integer' }, AdID: { type: 'string' } },
    content: {
      kind: 'one-of',
      optional: false,
      particles: [one('Linear', linear), one('CompanionAds', unchecked), one('NonLinearAds', unchecked)],
    },
  });
  const extensions = optional('Extensions', {
    attributes: {},
    content: { kind: 'sequence', particles: [any('Extension', unchecked)] },
  });
  const inlineHead: Particle[] = [
    one('AdSystem', { attributes: { version: { type: 'string' } }, text: 'string' }),
    one('AdTitle', str),
    optional('Description', str),
    ...(three
      ? [
          optional('Advertiser', str),
          optional('Pricing', {
            attributes: {
              model: { type: ['cpc', 'cpm', 'cpe', 'cpv'], required: true },
              currency: { type: 'currency', required: true },
            },
            text: 'decimal',
          }),
        ]
      : []),
    optional('Survey', uri()),
    optional('Error', uri()),
    any('Impression', uri(withId), 1),
  ];
  const inline: ElementRule = {
    attributes: {},
    content: {
      kind: 'sequence',
      particles: [
        ...inlineHead,
        one('Creatives', {
          attributes: {},
          content: { kind: 'sequence', particles: [any('Creative', creative(linearInline), 1)] },
        }),
        extensions,
      ],
    },
  };
  const wrapper: ElementRule = {
    attributes: {},
    content: {
      kind: 'sequence',
      particles: [
        one('AdSystem', { attributes: { version: { type: 'string' } }, text: 'string' }),
        one('VASTAdTagURI', uri()),
        optional('Error', uri()),
        any('Impression', uri(), 1),
        one('Creatives', {
          attributes: {},
          content: { kind: 'sequence', particles: [any('Creative', creative(linearWrapper))] },
        }),
        extensions,
      ],
    },
  };
  const ad: ElementRule = {
    attributes: three
      ? { id: { type: 'string' }, sequence: { type: 'integer' } }
      : { id: { type: 'string', required: true } },
    content: { kind: 'one-of', optional: false, particles: [one('InLine', inline), one('Wrapper', wrapper)] },
  };
  // No Error at the root in either: an empty document is the "no ad" answer.
  return {
    attributes: { version: { type: 'string', required: true } },
    content: { kind: 'sequence', particles: [any('Ad', ad)] },
  };
}

/** The root of a VAST 2.0 document (vast_2.0.1.xsd). */
export const VAST2_ROOT: ElementRule = rules('2.0');
/** The root of a VAST 3.0 document (vast3_draft.xsd). */
export const VAST3_ROOT: ElementRule = rules('3.0');
