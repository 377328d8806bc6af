import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { creativeFixture } from '@adnet/engine/fixtures';
import { vastAdm } from '@adnet/engine/vast-document';
import { vastWrapper } from '@adnet/engine/vast-wrapper';
import { IAB_VAST_XSD, schemaVerdict, vastVerdict } from '@adnet/test-support/hostile';
import { vastStructureProblems } from '@adnet/test-support/vast-structure';

const links = {
  clickUrl: 'https://ads.example.net/c/TICKET/tok',
  impressionUrl: 'https://ads.example.net/openrtb/imptracker/TICKET',
  trackingUrl: (e: string) => `https://ads.example.net/t/vast/${e}/TICKET`,
};
const inline = vastAdm(
  creativeFixture({ format: 'video', image_url: null, video_url: 'https://cdn.example.com/v.mp4' }),
  links,
  'bid-1',
);
const wrapper = vastWrapper({
  baseUrl: 'https://ads.example.net',
  token: 'TOKEN123',
  adm: 'https://dsp.example.com/vast.xml',
});
const empty = '<?xml version="1.0" encoding="UTF-8"?><VAST version="4.0" xmlns="http://www.iab.com/VAST"/>';

/** Each break of a document our writer makes, and a word the check's answer must carry. */
const BROKEN: [string, (xml: string) => string, string][] = [
  ['no namespace', (x) => x.replace(' xmlns="http://www.iab.com/VAST"', ''), 'namespace'],
  ['another namespace', (x) => x.replace('http://www.iab.com/VAST', 'http://example.com/VAST'), 'namespace'],
  ['root not VAST', (x) => x.replaceAll('<VAST ', '<Vast ').replace('</VAST>', '</Vast>'), 'root'],
  ['no version', (x) => x.replace(' version="4.0"', ''), 'version'],
  ['a VAST 3 version', (x) => x.replace('version="4.0"', 'version="3.0"'), 'version'],
  ['no Impression', (x) => x.replace(/<Impression id="imp">.*?<\/Impression>/, ''), 'Impression is required'],
  ['no AdSystem', (x) => x.replace('<AdSystem>adnet</AdSystem>', ''), 'AdSystem is required'],
  [
    'AdTitle before AdSystem',
    (x) => x.replace(/(<AdSystem>adnet<\/AdSystem>)(.*)(<AdTitle>.*?<\/AdTitle>)/, '$3$1$2'),
    'out of order',
  ],
  [
    'Duration after MediaFiles',
    (x) => x.replace(/(<Duration>.*?<\/Duration>)(<MediaFiles>.*?<\/MediaFiles>)/, '$2$1'),
    'out of order',
  ],
  ['no UniversalAdId', (x) => x.replace(/<UniversalAdId.*?<\/UniversalAdId>/, ''), 'UniversalAdId is required'],
  ['no Duration', (x) => x.replace(/<Duration>.*?<\/Duration>/, ''), 'Duration is required'],
  ['no MediaFile', (x) => x.replace(/<MediaFile .*?<\/MediaFile>/, ''), 'MediaFile is required'],
  ['Duration in seconds', (x) => x.replace(/<Duration>.*?<\/Duration>/, '<Duration>16</Duration>'), 'time'],
  ['a width that is not a number', (x) => x.replace(/width="\d+"/, 'width="wide"'), 'integer'],
  ['an unknown delivery', (x) => x.replace('delivery="progressive"', 'delivery="download"'), 'delivery'],
  ['MediaFile without type', (x) => x.replace(' type="video/mp4"', ''), 'type is required'],
  ['an unknown tracking event', (x) => x.replace('event="start"', 'event="begin"'), 'event'],
  [
    'an element the schema does not know',
    (x) => x.replace('<AdTitle>', '<Bogus>x</Bogus><AdTitle>'),
    'Bogus is not allowed',
  ],
  ['two AdTitles', (x) => x.replace(/(<AdTitle>.*?<\/AdTitle>)/, '$1$1'), 'at most 1'],
  ['an empty Ad', (x) => x.replace(/<InLine>.*<\/InLine>/, ''), 'InLine, Wrapper'],
  ['text inside Creatives', (x) => x.replace('<Creatives>', '<Creatives>loose text'), 'text'],
  ['cut short', (x) => x.slice(0, x.indexOf('<MediaFiles>')), 'well-formed'],
];

describe('the project’s VAST structure check, on every clone', () => {
  it('accepts what our writers make: an inline ad, a partner wrapper and the empty answer', () => {
    expect(vastStructureProblems(inline)).toEqual([]);
    expect(vastStructureProblems(wrapper)).toEqual([]);
    expect(vastStructureProblems(empty)).toEqual([]);
    expect(vastVerdict(inline).valid).toBe(true);
  });

  it.each(BROKEN)('refuses a document with %s', (_name, breakIt, word) => {
    const problems = vastStructureProblems(breakIt(inline));
    expect(problems.join('\n')).toContain(word);
    expect(vastVerdict(breakIt(inline)).valid).toBe(false);
  });

  it('refuses a wrapper without VASTAdTagURI, and one with Ad and Error side by side', () => {
    expect(vastStructureProblems(wrapper.replace(/<VASTAdTagURI>.*?<\/VASTAdTagURI>/, '')).join()).toContain(
      'VASTAdTagURI is required',
    );
    expect(vastStructureProblems(wrapper.replace('</Ad>', '</Ad><Error>https://x.example/e</Error>')).join()).toContain(
      'cannot both be here',
    );
  });
});

// The IAB's sample tags and broken documents, where the shared folder (or IAB_VAST_XSD's) holds them.
const iabFolder = IAB_VAST_XSD ? dirname(IAB_VAST_XSD) : undefined;
const xmlIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.xml'))
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')] as const);
const samples = iabFolder
  ? (() => {
      try {
        return xmlIn(join(iabFolder, 'samples', '4.0'));
      } catch {
        return [];
      }
    })()
  : [];
const negatives = iabFolder
  ? (() => {
      try {
        return xmlIn(join(iabFolder, 'negative'));
      } catch {
        return [];
      }
    })()
  : [];

describe.runIf(samples.length > 0 && negatives.length > 0)(
  'against the IAB’s own documents, where they are at hand',
  () => {
    it('accepts every IAB VAST 4.0 sample tag and the empty answer; refuses the five broken documents', () => {
      expect(samples.length).toBeGreaterThanOrEqual(16);
      for (const [name, xml] of samples) expect(vastStructureProblems(xml), name).toEqual([]);
      const verdicts = Object.fromEntries(
        negatives.map(([name, xml]) => [name, vastStructureProblems(xml).length === 0]),
      );
      expect(verdicts).toEqual({
        'empty-no-ad.xml': true,
        'malformed-truncated.xml': false,
        'missing-impression.xml': false,
        'missing-universaladid.xml': false,
        'no-namespace.xml': false,
        'wrong-element-order.xml': false,
      });
    });

    it('agrees with the IAB schema on every break above the schema itself refuses', () => {
      // The check is stricter than the schema in two places: an Ad must hold InLine or Wrapper, the version must be 4.x.
      expect(schemaVerdict(inline)?.valid).toBe(true);
      expect(vastVerdict(inline).checked).toBe('structure+schema');
      for (const [name, breakIt] of BROKEN) {
        if (name === 'an empty Ad' || name === 'a VAST 3 version') continue;
        expect(schemaVerdict(breakIt(inline))?.valid, name).toBe(false);
      }
    });
  },
);

// VAST 2.0 and 3.0 (no namespace; the older element orders): what the check refuses in our own 2.0 and 3.0
// documents, and, where the IAB's schema of the version is beside vast4.xsd, that the schema refuses it too.
const legacyInline = (version: '2.0' | '3.0') =>
  vastAdm(
    creativeFixture({ format: 'video', image_url: null, video_url: 'https://cdn.example.com/v.mp4' }),
    links,
    'bid-1',
    version,
  );
const legacyWrapper = (version: '2.0' | '3.0') =>
  vastWrapper({ baseUrl: 'https://ads.example.net', token: 'TOKEN123', adm: 'https://dsp.example.com/v.xml', version });

const LEGACY_BROKEN: [string, (xml: string) => string, string][] = [
  [
    'the VAST 4 namespace',
    (x) => x.replace(/<VAST version="(\d\.\d)">/, '<VAST version="$1" xmlns="http://www.iab.com/VAST">'),
    'namespace',
  ],
  ['no Impression', (x) => x.replace(/<Impression id="imp">.*?<\/Impression>/, ''), 'Impression is required'],
  [
    'AdTitle after Impression (4.0’s order)',
    (x) => x.replace(/(<AdTitle>.*?<\/AdTitle>)(.*?<\/Impression>)/, '$2$1'),
    'out of order',
  ],
  [
    'Duration after MediaFiles (4.0’s order)',
    (x) => x.replace(/(<Duration>.*?<\/Duration>)(.*)(<MediaFiles>.*?<\/MediaFiles>)/, '$2$3$1'),
    'out of order',
  ],
  [
    'a UniversalAdId',
    (x) => x.replace('<Linear>', '<UniversalAdId idRegistry="adnet" idValue="1">1</UniversalAdId><Linear>'),
    'not allowed',
  ],
  [
    'a ViewableImpression',
    (x) =>
      x.replace(
        '<Creatives>',
        '<ViewableImpression><Viewable>https://x.example/v</Viewable></ViewableImpression><Creatives>',
      ),
    'not allowed',
  ],
  ['two Errors', (x) => x.replace(/(<Error>.*?<\/Error>)/, '$1$1'), 'at most 1'],
  ['no Duration', (x) => x.replace(/<Duration>.*?<\/Duration>/, ''), 'Duration is required'],
  ['an unknown tracking event', (x) => x.replace('event="start"', 'event="begin"'), 'event'],
];

describe.each(['2.0', '3.0'] as const)('the structure check on VAST %s', (version) => {
  const inlineDoc = legacyInline(version);
  const wrapperDoc = legacyWrapper(version);

  it('accepts our inline ad, our wrapper and the empty answer', () => {
    expect(vastStructureProblems(inlineDoc)).toEqual([]);
    expect(vastStructureProblems(wrapperDoc)).toEqual([]);
    expect(vastStructureProblems(`<?xml version="1.0" encoding="UTF-8"?><VAST version="${version}"/>`)).toEqual([]);
  });

  it.each(LEGACY_BROKEN)(
    'refuses a document with %s, as the schema does where it is at hand',
    (name, breakIt, word) => {
      const broken = breakIt(inlineDoc);
      expect(broken, name).not.toBe(inlineDoc);
      expect(vastStructureProblems(broken).join('\n')).toContain(word);
      expect(schemaVerdict(broken)?.valid ?? false, name).toBe(false);
    },
  );

  it('refuses a wrapper in 4.0’s shape: an Impression id, no Creatives, VASTAdTagURI last', () => {
    const cases: [string, string][] = [
      [wrapperDoc.replace('<Impression>', '<Impression id="adnet">'), 'attribute id is not allowed'],
      [wrapperDoc.replace('<Creatives/>', ''), 'Creatives is required'],
      [
        wrapperDoc.replace(/(<VASTAdTagURI>.*?<\/VASTAdTagURI>)(<Impression>.*?<\/Impression>)/, '$2$1'),
        'out of order',
      ],
    ];
    for (const [broken, word] of cases) {
      expect(broken).not.toBe(wrapperDoc);
      expect(vastStructureProblems(broken).join('\n')).toContain(word);
      expect(schemaVerdict(broken)?.valid ?? false, word).toBe(false);
    }
  });

  it('knows what the versions differ in: an Ad id is required in 2.0; progress events and skipoffset are 3.0’s', () => {
    const noId = inlineDoc.replace(' id="bid-1"', '');
    const progress = inlineDoc.replace('event="start"', 'event="progress" offset="00:00:05"');
    const skip = inlineDoc.replace('<Linear>', '<Linear skipoffset="00:00:05">');
    const two = version === '2.0';
    expect(vastStructureProblems(noId).join()).toBe(two ? '/VAST/Ad[1]: attribute id is required' : '');
    expect(vastStructureProblems(progress).length > 0).toBe(two);
    expect(vastStructureProblems(skip).length > 0).toBe(two);
    for (const doc of [noId, progress, skip]) {
      const schema = schemaVerdict(doc);
      if (schema) expect(schema.valid).toBe(vastStructureProblems(doc).length === 0);
    }
  });
});
