import type { ElementRule, Particle } from './vast-grammar.ts';
import { any, one, optional, str, unchecked, uri, withId } from './vast-grammar.ts';

// The IAB VAST 4.0 schema (vast4.xsd) for the elements our documents and players rely on.

const TRACKING_EVENTS = [
  'mute',
  'unmute',
  'pause',
  'resume',
  'rewind',
  'skip',
  'playerExpand',
  'playerCollapse',
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'acceptInvitationLinear',
  'timeSpentViewing',
  'progress',
  'creativeView',
  'acceptInvitation',
  'adExpand',
  'adCollapse',
  'minimize',
  'close',
  'overlayViewDuration',
  'otherAdInteraction',
] as const;

const trackingEvents: ElementRule = {
  attributes: {},
  content: {
    kind: 'sequence',
    particles: [any('Tracking', uri({ event: { type: TRACKING_EVENTS, required: true }, offset: { type: 'offset' } }))],
  },
};

/** What InLine and Wrapper share, in the schema's order. */
const adBase: Particle[] = [
  one('AdSystem', { attributes: { version: { type: 'string' } }, text: 'string' }),
  any('Error', uri()),
  optional('Extensions', { attributes: {}, content: { kind: 'sequence', particles: [any('Extension', unchecked)] } }),
  any('Impression', uri(withId), 1),
  optional('Pricing', {
    attributes: {
      model: { type: ['CPC', 'CPM', 'CPE', 'CPV', 'cpc', 'cpm', 'cpe', 'cpv'], required: true },
      currency: { type: 'currency', required: true },
    },
    text: 'decimal',
  }),
  optional('ViewableImpression', {
    attributes: withId,
    content: {
      kind: 'sequence',
      particles: [any('Viewable', uri()), any('NotViewable', uri()), any('ViewUndetermined', uri())],
    },
  }),
];

const linearBase: Particle[] = [optional('Icons', unchecked), optional('TrackingEvents', trackingEvents)];
const linearAttributes = { skipoffset: { type: 'offset' as const } };

const mediaFile: ElementRule = {
  attributes: {
    id: { type: 'string' },
    delivery: { type: ['streaming', 'progressive'], required: true },
    type: { type: 'string', required: true },
    width: { type: 'integer', required: true },
    height: { type: 'integer', required: true },
    codec: { type: 'string' },
    bitrate: { type: 'integer' },
    minBitrate: { type: 'integer' },
    maxBitrate: { type: 'integer' },
    scalable: { type: 'boolean' },
    maintainAspectRatio: { type: 'boolean' },
    apiFramework: { type: 'string' },
  },
  text: 'uri',
};

const clickTrackers = [any('ClickTracking', uri(withId)), any('CustomClick', uri(withId))];

const linearInline: ElementRule = {
  attributes: linearAttributes,
  content: {
    kind: 'sequence',
    particles: [
      ...linearBase,
      optional('AdParameters', { attributes: { xmlEncoded: { type: 'boolean' } }, text: 'string' }),
      one('Duration', { attributes: {}, text: 'time' }),
      one('MediaFiles', {
        attributes: {},
        content: {
          kind: 'sequence',
          particles: [
            any('MediaFile', mediaFile, 1),
            optional('Mezzanine', uri('any')),
            any('InteractiveCreativeFile', uri({ type: { type: 'string' }, apiFramework: { type: 'string' } })),
          ],
        },
      }),
      optional('VideoClicks', {
        attributes: {},
        content: { kind: 'sequence', particles: [...clickTrackers, optional('ClickThrough', uri(withId))] },
      }),
    ],
  },
};

const linearWrapper: ElementRule = {
  attributes: linearAttributes,
  content: {
    kind: 'sequence',
    particles: [
      ...linearBase,
      optional('VideoClicks', { attributes: {}, content: { kind: 'sequence', particles: clickTrackers } }),
    ],
  },
};

const creativeAttributes = {
  sequence: { type: 'integer' as const },
  apiFramework: { type: 'string' as const },
  id: { type: 'string' as const },
  adId: { type: 'string' as const },
};

const creativeInline: ElementRule = {
  attributes: creativeAttributes,
  content: {
    kind: 'all',
    particles: [
      optional('CompanionAds', unchecked),
      optional('CreativeExtensions', unchecked),
      optional('Linear', linearInline),
      optional('NonLinearAds', unchecked),
      one('UniversalAdId', {
        attributes: { idRegistry: { type: 'string', required: true }, idValue: { type: 'string', required: true } },
        text: 'string',
      }),
    ],
  },
};

const creativeWrapper: ElementRule = {
  attributes: creativeAttributes,
  content: {
    kind: 'sequence',
    particles: [
      optional('CompanionAds', unchecked),
      optional('Linear', linearWrapper),
      optional('NonLinearAds', unchecked),
    ],
  },
};

const inline: ElementRule = {
  attributes: {},
  content: {
    kind: 'sequence',
    particles: [
      ...adBase,
      one('AdTitle', str),
      optional('AdVerifications', unchecked),
      optional('Advertiser', str),
      any('Category', { attributes: { authority: { type: 'reference', required: true } }, text: 'string' }),
      one('Creatives', {
        attributes: {},
        content: { kind: 'sequence', particles: [any('Creative', creativeInline, 1)] },
      }),
      optional('Description', str),
      optional('Survey', uri({ type: { type: 'string' } })),
    ],
  },
};

const wrapper: ElementRule = {
  attributes: {
    followAdditionalWrappers: { type: 'boolean' },
    allowMultipleAds: { type: 'boolean' },
    fallbackOnNoAd: { type: 'boolean' },
  },
  content: {
    kind: 'sequence',
    particles: [
      ...adBase,
      optional('AdVerifications', unchecked),
      optional('Creatives', {
        attributes: {},
        content: { kind: 'sequence', particles: [any('Creative', creativeWrapper, 1)] },
      }),
      one('VASTAdTagURI', uri()),
    ],
  },
};

const ad: ElementRule = {
  attributes: { id: { type: 'string' }, sequence: { type: 'integer' }, conditionalAd: { type: 'boolean' } },
  content: { kind: 'one-of', optional: false, particles: [one('InLine', inline), one('Wrapper', wrapper)] },
};

/** The root of a VAST 4.0 document. */
export const VAST4_ROOT: ElementRule = {
  attributes: { version: { type: 'string', required: true } },
  // The schema's choice: ads, or (when there is none to give) error URIs, never both.
  content: { kind: 'one-of', optional: true, particles: [any('Ad', ad), any('Error', uri())] },
};
