import { createHmac } from 'node:crypto';

/** A conversion as the advertiser's tracker sends it to `POST /postback/in`. */
export interface PostbackFields {
  click_id: string;
  payout: string;
  status: string;
  txid: string;
}

/** The tracker's HMAC over the fields (docs/conversions.md), hex unless asked otherwise. */
export const postbackSig = (secret: string, f: PostbackFields, enc: 'hex' | 'base64' = 'hex'): string =>
  createHmac('sha256', secret).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest(enc);

/** Posts one signed conversion as form fields, as a tracker does; the answer's status. */
export async function postConversion(base: string, secret: string, f: PostbackFields): Promise<number> {
  const res = await fetch(`${base}/postback/in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...f, secret, sig: postbackSig(secret, f) }).toString(),
  });
  await res.arrayBuffer();
  return res.status;
}
