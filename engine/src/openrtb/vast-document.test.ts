import { describe, expect, it } from 'vitest';
import type { VastVersion } from '@adnet/schemas/vast';
import { VAST_VERSIONS } from '@adnet/schemas/vast';
import {
  HOSTILE_TEXT,
  HOSTILE_URLS,
  IAB_VAST_SCHEMAS,
  schemaVerdict,
  scriptElements,
  vastVerdict,
  xmlText,
  xpath,
} from '@adnet/test-support/hostile';
import { vastStructureProblems } from '@adnet/test-support/vast-structure';
import { creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { partnerVastVersion, vastWrapper } from '../demand/vast-wrapper.ts';
import { vastAdm } from './vast-document.ts';
import { emptyVastDocument, VAST_EVENTS } from './vast-trackers.ts';

const links = {
  clickUrl: 'https://ads.example.net/c/TICKET/tok',
  impressionUrl: 'https://ads.example.net/openrtb/imptracker/TICKET',
  trackingUrl: (e: string) => `https://ads.example.net/t/vast/${e}/TICKET`,
};
const video = creativeFixture({
  id: 42,
  format: 'video',
  image_url: null,
  video_url: 'https://cdn.example.com/v.mp4',
  duration_s: 15,
});
const count = (xml: string, local: string): number => Number(xpath(xml, `count(//*[local-name()='${local}'])`));
const wrap = (version: VastVersion, adm = 'https://dsp.example.com/vast.xml') =>
  vastWrapper({ baseUrl: 'https://ads.example.net', token: 'TOKEN123', adm, version });

describe.each(VAST_VERSIONS)('VAST %s', (version) => {
  const xml = vastAdm(video, links, 'bid-1', version);
  const schema = IAB_VAST_SCHEMAS[version];

  it('is valid: the structural check always, the IAB schema of the version where it is at hand', () => {
    expect(vastStructureProblems(xml)).toEqual([]);
    const verdict = vastVerdict(xml);
    expect(verdict.valid, verdict.output).toBe(true);
    expect(verdict.checked).toBe(schema ? 'structure+schema' : 'structure');
    expect(xpath(xml, 'string(/*/@version)').trim()).toBe(version);
  });

  it('carries the same trackers as 4.0: impression, error, each playback event and the click', () => {
    expect(xmlText(xml, 'Impression')).toBe(links.impressionUrl);
    expect(xmlText(xml, 'Error')).toBe(links.trackingUrl('error'));
    expect(xmlText(xml, 'ClickThrough')).toBe(links.clickUrl);
    for (const e of VAST_EVENTS)
      expect(xpath(xml, `string(//*[local-name()='Tracking'][@event='${e}'])`).trim()).toBe(links.trackingUrl(e));
    expect(count(xml, 'Tracking')).toBe(VAST_EVENTS.length);
    expect(count(xml, 'Impression')).toBe(1);
    expect(xmlText(xml, 'Duration')).toBe('00:00:15');
    expect(xmlText(xml, 'MediaFile')).toBe('https://cdn.example.com/v.mp4');
  });

  it('has what the version has and nothing it lacks', () => {
    const four = version === '4.0';
    expect(xml.includes('xmlns="http://www.iab.com/VAST"')).toBe(four);
    expect(count(xml, 'UniversalAdId')).toBe(four ? 1 : 0);
    expect(count(xml, 'ViewableImpression')).toBe(four ? 1 : 0);
    expect(xpath(xml, "string(//*[local-name()='Creative']/@AdID)").trim()).toBe(four ? '' : '42');
    for (const absent of ['AdVerifications', 'Mezzanine', 'Icons']) expect(count(xml, absent)).toBe(0);
  });

  it('stays valid with hostile creatives, with no element a creative smuggled in', () => {
    HOSTILE_TEXT.forEach((text, i) => {
      const c = creativeFixture({
        id: i + 1,
        format: 'video',
        title: text,
        image_url: null,
        video_url: HOSTILE_URLS[i % HOSTILE_URLS.length] as string,
      });
      const out = vastAdm(c, links, `bid-${text.slice(0, 20)}`, version);
      const verdict = vastVerdict(out);
      expect(verdict.valid, verdict.output).toBe(true);
      expect(scriptElements(out)).toBe(0);
      expect(xmlText(out, 'MediaFile')).toBe('');
    });
  });

  it('has an empty "no ad" answer and a wrapper of its own, both valid', () => {
    for (const doc of [emptyVastDocument(version), wrap(version)]) {
      const verdict = vastVerdict(doc);
      expect(verdict.valid, verdict.output).toBe(true);
      expect(xpath(doc, 'string(/*/@version)').trim()).toBe(version);
    }
    const w = wrap(version);
    expect(xmlText(w, 'Impression')).toBe('https://ads.example.net/openrtb/imptracker/TOKEN123');
    expect(xmlText(w, 'VASTAdTagURI')).toBe('https://dsp.example.com/vast.xml');
  });

  it('is refused across the 4.0 line: 4.0 by the older schemas, 2.0 and 3.0 by 4.0’s', () => {
    // Our 2.0 and 3.0 documents have the same shape (3.0 only adds what we do not write), so each is valid as
    // the other; 4.0's order, namespace and UniversalAdId part it from both.
    for (const other of VAST_VERSIONS.filter((v) => (v === '4.0') !== (version === '4.0'))) {
      const relabelled = xml
        .replace(`version="${version}"`, `version="${other}"`)
        .replace(' xmlns="http://www.iab.com/VAST"', other === '4.0' ? ' xmlns="http://www.iab.com/VAST"' : '');
      expect(vastStructureProblems(relabelled), `${version} as ${other}`).not.toEqual([]);
      if (IAB_VAST_SCHEMAS[other]) expect(schemaVerdict(relabelled)?.valid, `${version} as ${other}`).toBe(false);
    }
  });
});

describe('a partner wrapper follows the partner’s version', () => {
  it('reads the version of its markup, else its bid.protocol, else the one the player asked for', () => {
    expect(partnerVastVersion('<VAST version="2.0"><Ad/></VAST>', 7, '4.0')).toBe('2.0');
    expect(partnerVastVersion("<?xml version='1.0'?><VAST xmlns='x' version='3.0.1'>", undefined, '4.0')).toBe('3.0');
    expect(partnerVastVersion('<VAST version="4.2">', undefined, '2.0')).toBe('4.0');
    expect(partnerVastVersion('https://dsp.example.com/vast.xml', 6, '4.0')).toBe('3.0');
    expect(partnerVastVersion('https://dsp.example.com/vast.xml', 13, '4.0')).toBe('4.0');
    expect(partnerVastVersion('https://dsp.example.com/vast.xml', 99, '3.0')).toBe('3.0');
    expect(partnerVastVersion('https://dsp.example.com/vast.xml', undefined, '2.0')).toBe('2.0');
  });

  it('writes its markup inline elsewhere: the wrapper points at our copy of it', () => {
    const w = wrap('2.0', '<VAST version="2.0"><Ad id="a"><InLine/></Ad></VAST>');
    expect(xmlText(w, 'VASTAdTagURI')).toBe('https://ads.example.net/openrtb/adm/TOKEN123');
    expect(vastVerdict(w).valid).toBe(true);
  });
});
