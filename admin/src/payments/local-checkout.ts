import type { Logger } from '../log.ts';
import type { DepositStore } from './deposit-store.ts';
import { PAGE_CSP, esc, page, usd } from './html.ts';
import { LOCAL_CHECKOUT_PREFIX } from './providers.ts';

export interface PageAnswer {
  status: number;
  html: string;
  headers: Record<string, string>;
}

const TOKEN_RE = /^[0-9a-f]{64}$/;
const HEADERS = { 'content-security-policy': PAGE_CSP, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
const answer = (status: number, title: string, body: string): PageAnswer => ({
  status,
  html: page(title, body),
  headers: HEADERS,
});

/** The token of a local checkout path, or undefined when the path is not one. */
export function localCheckoutToken(path: string): string | undefined {
  if (!path.startsWith(LOCAL_CHECKOUT_PREFIX)) return undefined;
  const token = path.slice(LOCAL_CHECKOUT_PREFIX.length);
  return TOKEN_RE.test(token) ? token : undefined;
}

/**
 * The local provider's checkout page: GET shows the amount and a Pay button, a POST to the same URL
 * completes the payment. The unguessable token in the URL is the only credential, as with a hosted
 * checkout link; a second POST finds the deposit paid and credits nothing.
 */
export async function localCheckout(
  deposits: DepositStore,
  log: Logger,
  method: string,
  token: string,
): Promise<PageAnswer> {
  const id = await deposits.localTokenDeposit(token);
  const dep = id === undefined ? undefined : await deposits.get(id);
  if (!dep) return answer(404, 'Unknown checkout', '<h1>Unknown or expired checkout link</h1>');
  const back = '<p><a href="/cabinet/billing">Back to billing</a></p>';
  if (method === 'POST') {
    const outcome = await deposits.markPaid(dep.id, `local-${dep.id}`);
    if (outcome !== 'credited')
      return answer(409, 'Already completed', `<h1>This checkout is already ${esc(dep.status)}</h1>${back}`);
    log.info(
      {
        event: 'deposit.paid',
        depositId: dep.id,
        advertiserId: dep.advertiserId,
        cents: dep.amountCents,
        provider: 'local',
      },
      'deposit credited',
    );
    return answer(
      200,
      'Payment complete',
      `<h1 id="paid">Payment complete</h1><p>Deposit #${dep.id}: ${esc(usd(dep.amountCents))} was added to your balance.</p>${back}`,
    );
  }
  if (dep.status !== 'pending')
    return answer(409, 'Already completed', `<h1>This checkout is already ${esc(dep.status)}</h1>${back}`);
  return answer(
    200,
    'Checkout',
    `<h1>Deposit #${dep.id}</h1><p class="amount">${esc(usd(dep.amountCents))} USD</p><p>Local payment provider: no card is charged. Pressing Pay completes the deposit.</p><form method="post"><button type="submit" id="pay">Pay ${esc(usd(dep.amountCents))}</button></form>`,
  );
}
