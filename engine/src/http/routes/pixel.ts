import type { EngineReply } from '../adapt.ts';

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A 1x1 GIF, never cached: pixels and beacons answer with it (CORS open, for scripts that fetch them). */
export const PIXEL_REPLY: EngineReply = {
  status: 200,
  headers: { 'content-type': 'image/gif', 'cache-control': 'no-store', 'access-control-allow-origin': '*' },
  body: GIF,
};
