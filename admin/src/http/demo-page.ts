// The pages of `pnpm adnet demo`: a publisher's page that shows a zone's ad through the widget, and a
// landing page for the demo ad's click, both served by the product itself so the demo needs nothing else.
// Opened at `http://demo.localhost:<port>/demo/<subid>`, the page is on the demo site's domain as the engine
// judges it (launcher/src/commands/demo.ts); on any other host the engine refuses its ad (foreign_origin).

const SUBID = /^[A-Za-z0-9]{1,32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface DemoAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1e293b}.note{color:#475569;font-size:.9rem}';

function html(csp: string, title: string, body: string): DemoAnswer {
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': csp,
    },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${STYLE}</style></head><body>${body}</body></html>`,
  };
}

/**
 * `GET /demo/<subid>` and `GET /demo/landing?click_id=<uuid>`; undefined for any other path (the caller
 * answers 404). Nothing from the request reaches the markup but a checked subid or click id.
 */
export function demoPage(
  path: string,
  query: URLSearchParams,
  urls: { baseUrl: string; adBaseUrl: string },
): DemoAnswer | undefined {
  const name = path.slice('/demo/'.length);
  const ad = new URL(urls.adBaseUrl).origin;
  const base = new URL(urls.baseUrl).origin;
  if (name === 'landing') {
    const clickId = query.get('click_id') ?? '';
    return html(
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'adnet demo: landing page',
      `<h1 id="landing">The advertiser's landing page</h1><p>You came here by clicking the demo ad.${UUID.test(clickId) ? ` Click id <code id="click-id">${clickId}</code>: the advertiser's tracker would report a conversion with it.` : ''}</p>` +
        `<p class="note">The impression and the click appear in the advertiser's statistics within a few seconds: <a href="${base}/cabinet">${base}/cabinet</a>.</p>`,
    );
  }
  if (!SUBID.test(name)) return undefined;
  return html(
    // The widget's own needs: its script, its ad request and beacons, the ad's image; its styles are inline.
    `default-src 'none'; script-src ${ad}; connect-src ${ad}; img-src ${ad} ${base} data:; style-src 'unsafe-inline'; frame-src ${ad} https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'adnet demo: a publisher page',
    `<h1>A publisher's page</h1><p>This page stands for a page of the demo site: zone <code>${name}</code> shows its ad below through the widget script, as on any publisher's page.</p>` +
      `<script src="${ad}/w/${name}.js"></script>` +
      `<p class="note">Click the ad: its landing page opens. The impression and the click then appear in the advertiser's statistics (<a href="${base}/cabinet">${base}/cabinet</a>) within a few seconds.</p>` +
      `<p class="note">No ad? Open this page at the address <code>pnpm adnet demo</code> printed (host <code>demo.localhost</code>): the engine shows a zone's ads only on its site's pages.</p>`,
  );
}
