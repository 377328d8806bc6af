import { registerBidder } from 'prebid.js/src/adapters/bidderFactory.js';
import type { BidderSpec } from 'prebid.js/src/adapters/bidderFactory.js';
import { config } from 'prebid.js/src/config.js';
import { BANNER, NATIVE, VIDEO } from 'prebid.js/src/mediaTypes.js';
import { getStorageManager } from 'prebid.js/src/storageManager.js';
import { logWarn, triggerPixel } from 'prebid.js/src/utils.js';
import { ortbConverter } from 'prebid.js/libraries/ortbConverter/converter.js';
import { BIDDER_CODE, MTYPE_MEDIA, bidEndpoint, firstPartyId, isAdnetParams } from './adnet-ortb.ts';

// Our bid adapter for Prebid.js (docs/browser-endpoints.md#header-bidding-prebidjs). Each ad unit's bid names one
// of our zones, `params: { zone: '<subid>' }`; one OpenRTB request per auction goes to `POST <endpoint>/hb/bid`, the
// endpoint set once on the page: `pbjs.setConfig({ adnet: { endpoint: 'https://<our ad host>' } })`. Our markup
// fires our render beacon when Prebid renders it: that is the impression. The win notice only informs us.

const storage = getStorageManager({ bidderCode: BIDDER_CODE });

/** Where our bid's win notice is kept on Prebid's bid: not `nurl`, which Prebid would fire itself when rendering. */
const WON_URL = 'adnetWonUrl';

const converter = ortbConverter({
  context: { netRevenue: true, ttl: 300, currency: 'USD' },
  imp(buildImp, bidRequest, context) {
    const imp = buildImp(bidRequest, context);
    if (isAdnetParams(bidRequest.params)) imp.tagid = String(bidRequest.params.zone);
    return imp;
  },
  request(buildRequest, imps, bidderRequest, context) {
    const request = buildRequest(imps, bidderRequest, context);
    const u = storage.localStorageIsEnabled() ? firstPartyId(storage, (b) => crypto.getRandomValues(b)) : undefined;
    if (u) request.ext = { ...request.ext, adnet: { u } };
    return request;
  },
  bidResponse(buildBidResponse, bid, context) {
    const mediaType = MTYPE_MEDIA[bid.mtype ?? 0];
    if (mediaType) context.mediaType = mediaType;
    const won = bid.nurl;
    delete bid.nurl;
    const out = buildBidResponse(bid, context);
    if (won) (out as unknown as Record<string, unknown>)[WON_URL] = won;
    return out;
  },
});

export const spec: BidderSpec<typeof BIDDER_CODE> = {
  code: BIDDER_CODE,
  supportedMediaTypes: [BANNER, NATIVE, VIDEO],
  isBidRequestValid(bidRequest) {
    if (isAdnetParams(bidRequest.params)) return true;
    logWarn(`${BIDDER_CODE}: params.zone must be the subid of one of our zones`);
    return false;
  },
  buildRequests(bidRequests, bidderRequest) {
    const endpoint: unknown = config.getConfig('adnet.endpoint');
    const url = bidEndpoint(typeof endpoint === 'string' ? endpoint : '');
    if (!url) {
      logWarn(`${BIDDER_CODE}: set our endpoint with pbjs.setConfig({ adnet: { endpoint: 'https://...' } })`);
      return [];
    }
    const data = converter.toORTB({ bidRequests, bidderRequest });
    // As a simple request (text/plain, no credentials): no preflight, no cookies.
    return { method: 'POST', url, data, options: { contentType: 'text/plain', withCredentials: false } };
  },
  interpretResponse(response, request) {
    const body: unknown = response.body;
    if (!body) return [];
    type Read = Parameters<typeof converter.fromORTB>[0];
    return converter.fromORTB({ response: body as Read['response'], request: request.data as Read['request'] });
  },
  onBidWon(bid) {
    const url = (bid as unknown as Record<string, unknown>)[WON_URL];
    if (typeof url === 'string') triggerPixel(url);
  },
};

registerBidder(spec);
