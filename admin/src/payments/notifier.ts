import type { Payout } from '@adnet/schemas/billing';

/**
 * The billing events someone may want to be told about. The email notices (issue 20, item 4) plug in
 * here: `createServices` takes the default below until the mail helper wires its own; billing code
 * calls it after the state change is stored, and a failure to notify never undoes a payment.
 */
export interface BillingNotifier {
  /** A payout was marked paid by an admin (with the reference they gave). */
  payoutPaid(payout: Payout): Promise<void>;
}

export const noopBillingNotifier: BillingNotifier = { payoutPaid: () => Promise.resolve() };
