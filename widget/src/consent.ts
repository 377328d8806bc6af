// The page's IAB TCF v2 signal for our ad requests, read from its consent platform (CMP) through `__tcfapi`, the
// API every registered CMP puts on the page. The engine decides with it whether the visitor may be named to caps and
// audiences (docs/browser-endpoints.md, /imp's `gdpr` and `gdpr_consent`).

interface TcData {
  gdprApplies?: boolean;
  tcString?: string;
}
type TcfApi = (command: string, version: number, callback: (data: TcData | null, ok: boolean) => void) => void;

/** How long a CMP may take to answer before the ad is asked for without the visitor's consent. */
export const CMP_WAIT_MS = 500;

/**
 * `&gdpr=1&gdpr_consent=<TC string>` when the page's CMP says GDPR applies, `''` when it says it does not or the page
 * has no CMP. A CMP that fails or does not answer in time gives `&gdpr=1` alone: a page that runs a CMP is one where
 * GDPR may apply, and no consent is assumed without the CMP saying so.
 */
export function consentQuery(win: Window = window, waitMs = CMP_WAIT_MS): Promise<string> {
  const api = (win as unknown as { __tcfapi?: TcfApi }).__tcfapi;
  if (typeof api !== 'function') return Promise.resolve('');
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('&gdpr=1'), waitMs);
    const answer = (q: string) => {
      clearTimeout(timer);
      resolve(q);
    };
    try {
      api('getTCData', 2, (data, ok) => {
        if (!ok || !data) return answer('&gdpr=1');
        if (data.gdprApplies === false) return answer('');
        answer(`&gdpr=1${data.tcString ? `&gdpr_consent=${encodeURIComponent(data.tcString)}` : ''}`);
      });
    } catch {
      answer('&gdpr=1');
    }
  });
}
