// The few pages the admin renders itself (the local checkout page, receipts): every value from
// data goes through `esc`, so a name or reason cannot become markup.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (value: string | number): string => String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

export const usd = (cents: number): string => `${cents < 0 ? '-' : ''}$${(Math.abs(cents) / 100).toFixed(2)}`;

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd}
.amount{font-size:1.6rem;font-weight:600}button{font-size:1.1rem;padding:.5rem 1.5rem}`;

/** A whole page; `body` must already be escaped markup. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** Pages with inline style and a form posting to themselves; nothing else may load or run. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface ReceiptView {
  number: string;
  depositId: number;
  issuedAt: string;
  advertiserEmail: string;
  advertiserId: number;
  amountCents: number;
  refundedCents: number;
  provider: string;
  paymentRef: string;
  issuer: string;
}

export function receiptHtml(r: ReceiptView): string {
  const rows: [string, string][] = [
    ['Receipt number', r.number],
    ['Date (UTC)', r.issuedAt.replace('T', ' ').slice(0, 19)],
    ['Billed to', `${r.advertiserEmail} (account ${r.advertiserId})`],
    ['Description', `Prepaid advertising balance, deposit #${r.depositId}`],
    [
      'Paid through',
      r.provider === 'stripe'
        ? `Stripe${r.paymentRef ? ` (${r.paymentRef})` : ''}`
        : 'local test provider (no money moved)',
    ],
    ['Amount', usd(r.amountCents)],
  ];
  if (r.refundedCents > 0) rows.push(['Refunded', usd(r.refundedCents)]);
  const table = rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  return page(
    `Receipt ${r.number}`,
    `<h1>Receipt ${esc(r.number)}</h1><p>${esc(r.issuer)}</p><table>${table}</table><p class="amount">Total paid: ${esc(usd(r.amountCents))} USD</p>`,
  );
}
