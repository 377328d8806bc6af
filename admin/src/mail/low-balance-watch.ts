import { Periodic } from '@adnet/runtime/periodic';
import { lowBalanceStep } from '../domain/low-balance.ts';
import type { AdminConfig } from '@adnet/schemas/config';
import type { Logger } from '../log.ts';
import type { LedgerStore } from '../storage/ledger.ts';
import type { LowBalanceStore } from '../storage/low-balance.ts';
import type { Notifier } from './notifier.ts';

/** The thresholds, the balances they are compared with, and the queue a notice goes to. */
export interface LowBalancePorts {
  config: Pick<AdminConfig, 'mail'>;
  log: Logger;
  lowBalance: Pick<LowBalanceStore, 'scan' | 'rearm' | 'claimNotice'>;
  ledger: Pick<LedgerStore, 'balance'>;
  notifier: Pick<Notifier, 'notify'>;
}

/**
 * Looks at the balance of every advertiser with a threshold each MAIL_POLL_MS and queues a notice once
 * per crossing (domain/low-balance.ts). Polling, not a hook on each debit: spend is settled by the
 * engines on the hot path, which should not pay for notices, and a look a few seconds late is fine.
 */
export function lowBalanceWatch(svc: LowBalancePorts): Periodic {
  const watch: Periodic = new Periodic({
    intervalMs: svc.config.mail.pollMs,
    pass: async () => {
      let cursor = '0';
      do {
        const page = await svc.lowBalance.scan(cursor);
        cursor = page.next;
        for (const a of page.accounts) {
          const balance = await svc.ledger.balance(a.userId);
          const step = lowBalanceStep(balance, a.thresholdCents, a.notified);
          if (step === 'rearm') await svc.lowBalance.rearm(a.userId);
          if (step === 'notify' && (await svc.lowBalance.claimNotice(a.userId))) {
            await svc.notifier.notify({
              kind: 'low_balance',
              user_id: a.userId,
              balance_cents: balance,
              threshold_cents: a.thresholdCents,
            });
          }
        }
      } while (cursor !== '0' && !watch.stopping);
    },
    onError: (err) => svc.log.warn({ err }, 'low-balance pass failed'),
  });
  return watch;
}
