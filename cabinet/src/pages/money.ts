import { api } from '../api.ts';
import { badge, h, table, usd } from '../dom.ts';
import type { PageContext } from '../router.ts';

export async function conversionsPage(ctx: PageContext): Promise<void> {
  const { conversions } = await api.adv.conversions.list.query();
  ctx.main.replaceChildren(
    h('h1', {}, 'Conversions'),
    table(
      ['Time', 'Click id', 'Txid', 'Payout', 'Status', 'Campaign', 'Outgoing postbacks'],
      conversions.map((c) => [
        new Date(c.created_at).toLocaleString(),
        h('code', {}, c.click_id),
        c.txid,
        usd(c.payout_cents),
        h('span', {}, badge(c.status), c.postback_failed ? badge('postback_failed') : null),
        String(c.campaign_id),
        c.attempts.length
          ? h(
              'ul',
              {},
              c.attempts.map((a) =>
                h('li', {}, `#${a.attempt} ${new Date(a.at).toLocaleTimeString()} ${a.status ?? ''} ${a.error ?? ''}`),
              ),
            )
          : 'none',
      ]),
      'Conversions and their outgoing postbacks',
    ),
  );
}
