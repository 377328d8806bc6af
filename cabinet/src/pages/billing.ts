import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, badge, h, notify, table, usd } from '../dom.ts';
import { buildForm, num, text } from '../form.ts';
import type { PageContext } from '../router.ts';
import { BASE } from '../router.ts';

type Deposit = Outputs['adv']['deposits']['list']['deposits'][number];
type Payout = Outputs['pub']['payouts']['list']['payouts'][number];

const thisMonth = (): string => new Date().toISOString().slice(0, 7);
const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : '');

/** Saves text as a file (the receipt needs the bearer token, so it is fetched here and saved, not linked). */
function save(name: string, body: string, type: string): void {
  const a = h('a', { href: URL.createObjectURL(new Blob([body], { type })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

/** A month picker with a Show button and a CSV download, for both statements. */
function statementPicker(
  label: string,
  show: (month: string) => Promise<HTMLElement>,
  csv: (month: string) => Promise<string>,
): HTMLElement {
  const out = h('div', {});
  const { form } = buildForm({
    label,
    submit: 'Show statement',
    fields: [{ name: 'month', label: 'Month (YYYY-MM)', value: thisMonth(), required: true }],
    async onSubmit(d) {
      out.replaceChildren(await show(text(d, 'month')));
    },
  });
  const monthOf = () => (form.querySelector<HTMLInputElement>('[name="month"]')?.value ?? thisMonth()).trim();
  return h(
    'section',
    {},
    form,
    actionButton('Download CSV', async () => save(`statement-${monthOf()}.csv`, await csv(monthOf()), 'text/csv')),
    out,
  );
}

// ---------------------------------------------------------------- advertisers

function depositRow(d: Deposit): (Node | string)[] {
  const actions = h('div', { class: 'row-actions' });
  if (d.status === 'pending' && d.checkout_url)
    actions.append(h('a', { href: d.checkout_url, rel: 'noopener' }, 'Pay'));
  if (d.receipt_number) {
    const number = d.receipt_number;
    actions.append(
      actionButton(
        'Receipt',
        async () =>
          save(`receipt-${number}.html`, (await api.adv.deposits.receipt.query({ id: d.id })).html, 'text/html'),
        {
          'aria-label': `Receipt ${number}`,
        },
      ),
    );
  }
  return [
    `#${d.id}`,
    when(d.created_at),
    usd(d.amount_cents),
    badge(d.status),
    d.receipt_number ?? '',
    d.refunded_cents ? usd(d.refunded_cents) : '',
    actions,
  ];
}

/**
 * Advertisers' one money area: the balance, a deposit through the payment provider's checkout (its limits
 * stated before anyone types), deposits with receipts, the ledger and monthly statements. Every "add funds"
 * link lands on `#add-funds`, which puts the cursor in the amount.
 */
export async function billingPage(ctx: PageContext): Promise<void> {
  const [balance, { deposits }, limits] = await Promise.all([
    api.adv.balance.get.query({ limit: 200 }),
    api.adv.deposits.list.query({ limit: 100 }),
    api.adv.deposits.limits.query(),
  ]);
  const { form } = buildForm({
    label: 'Add funds',
    submit: 'Continue to payment',
    fields: [
      {
        name: 'amount_usd',
        label: 'Amount (USD)',
        type: 'number',
        step: '0.01',
        required: true,
        hint: `From ${usd(limits.min_cents)} to ${usd(limits.max_cents)} per deposit.`,
      },
    ],
    async onSubmit(d) {
      const created = await api.adv.deposits.create.mutate({ amount_usd: num(d, 'amount_usd') });
      if (created.checkout_url) location.assign(created.checkout_url);
    },
  });
  const amount = form.querySelector<HTMLInputElement>('[name="amount_usd"]');
  amount?.setAttribute('min', (limits.min_cents / 100).toFixed(2));
  amount?.setAttribute('max', (limits.max_cents / 100).toFixed(2));
  ctx.main.replaceChildren(
    h('h1', {}, 'Billing'),
    h('p', {}, 'Balance: ', h('span', { class: 'big', 'data-testid': 'balance' }, usd(balance.balance_cents))),
    h(
      'p',
      { class: 'form-error', hidden: balance.balance_cents >= 0 },
      'The balance is below zero (a refund of money already spent): campaigns do not serve until it is topped up.',
    ),
    h(
      'nav',
      { 'aria-label': 'Billing sections', class: 'tabs' },
      [
        ['add-funds', 'Add funds'],
        ['deposits', 'Deposits'],
        ['ledger', 'Ledger'],
        ['statement', 'Statement'],
      ].map(([id, label]) => h('a', { href: `#${id}` }, label)),
    ),
    h(
      'section',
      { id: 'add-funds', 'aria-labelledby': 'add-funds-h' },
      h('h2', { id: 'add-funds-h' }, 'Add funds'),
      form,
    ),
    h(
      'section',
      { id: 'deposits', 'aria-labelledby': 'deposits-h' },
      h('h2', { id: 'deposits-h' }, 'Deposits'),
      table(
        ['Deposit', 'Created', 'Amount', 'Status', 'Receipt', 'Refunded', ''],
        deposits.map(depositRow),
        'Deposits',
      ),
    ),
    h(
      'section',
      { id: 'ledger', 'aria-labelledby': 'ledger-h' },
      h('h2', { id: 'ledger-h' }, 'Ledger'),
      table(
        ['Time', 'Kind', 'Amount', 'Balance after', 'Reason'],
        balance.ledger.map((e) => [
          when(e.created_at),
          e.kind,
          usd(e.amount_cents),
          usd(e.balance_after_cents),
          e.reason,
        ]),
        'Every credit and debit, newest first',
      ),
    ),
    h(
      'section',
      { id: 'statement', 'aria-labelledby': 'statement-h' },
      h('h2', { id: 'statement-h' }, 'Monthly statement'),
      statementPicker(
        'Statement',
        async (month) => {
          const s = await api.adv.statements.get.query({ month });
          return h(
            'div',
            {},
            table(
              ['Campaign', 'Impressions', 'Clicks', 'Conversions', 'Spend'],
              [
                ...s.campaigns.map((c) => [
                  c.name || `#${c.campaign_id}`,
                  c.impressions,
                  c.clicks,
                  c.conversions,
                  usd(c.spent_cents),
                ]),
                ['Total', '', '', '', usd(s.total_spent_cents)],
              ],
              `Spend per campaign, ${s.month} (UTC)`,
            ),
            h('p', {}, `Deposits ${usd(s.deposits_cents)} · refunds ${usd(s.refunds_cents)}`),
          );
        },
        async (month) => (await api.adv.statements.get.query({ month, format: 'csv' })).csv ?? '',
      ),
    ),
  );
  // Asked for by an "add funds" link: the cursor waits in the amount (main.ts leaves a focus a page set).
  if (location.hash === '#add-funds' && amount) {
    amount.focus();
    amount.scrollIntoView({ block: 'center' });
  }
}

// ---------------------------------------------------------------- publishers

const DETAIL_FIELDS = {
  paypal: ['email'],
  wire: ['account_holder', 'iban', 'swift', 'bank_name'],
  crypto: ['currency', 'network', 'address'],
} as const;
const DETAIL_LABELS: Record<string, string> = {
  email: 'PayPal email',
  account_holder: 'Account holder',
  iban: 'IBAN',
  swift: 'BIC / SWIFT',
  bank_name: 'Bank name (optional)',
  currency: 'Currency (USDT, USDC, BTC, ETH)',
  network: 'Network (ethereum, tron, bitcoin, polygon)',
  address: 'Wallet address',
};

function payoutRows(payouts: Payout[]): (Node | string)[][] {
  return payouts.map((p) => [
    `#${p.id}`,
    when(p.created_at),
    usd(p.amount_cents),
    p.method,
    badge(p.status),
    p.reference ?? p.hold_reason ?? '',
    when(p.paid_at),
  ]);
}

/** Publishers: balance of closed earnings, payout settings, payouts, monthly statements. */
export async function payoutsPage(ctx: PageContext): Promise<void> {
  const [b, { payouts }] = await Promise.all([
    api.pub.payouts.balance.query({ limit: 50 }),
    api.pub.payouts.list.query({ limit: 100 }),
  ]);
  const again = () => payoutsPage(ctx);
  const current = b.settings;
  const method = current?.method ?? 'paypal';
  const detailNames = [...new Set(Object.values(DETAIL_FIELDS).flat())];
  const { form } = buildForm({
    label: 'Payout settings',
    submit: 'Save settings',
    fields: [
      { name: 'method', label: 'Method', type: 'select', options: ['paypal', 'wire', 'crypto'], value: method },
      ...detailNames.map((n) => ({
        name: `details.${n}`,
        label: DETAIL_LABELS[n] ?? n,
        value: current?.details[n] ?? '',
      })),
      {
        name: 'threshold_usd',
        label: 'Pay out from (USD, at least 10)',
        type: 'number',
        step: '0.01',
        value: current ? String(current.threshold_cents / 100) : '50',
      },
    ],
    async onSubmit(d) {
      const m = text(d, 'method') as keyof typeof DETAIL_FIELDS;
      const details: Record<string, string> = {};
      for (const n of DETAIL_FIELDS[m] ?? [])
        if (text(d, `details.${n}`) || n !== 'bank_name') details[n] = text(d, `details.${n}`);
      // The union's variants differ only in `details`; the API validates them per method.
      await api.pub.payouts.setSettings.mutate({
        method: m,
        details,
        threshold_usd: num(d, 'threshold_usd'),
      } as Parameters<typeof api.pub.payouts.setSettings.mutate>[0]);
      notify('Payout settings saved');
      await again();
    },
  });
  // Only the chosen method's detail fields are shown (the others are not sent either).
  const methodSelect = form.querySelector<HTMLSelectElement>('[name="method"]');
  const showDetails = () => {
    const wanted: readonly string[] =
      DETAIL_FIELDS[(methodSelect?.value ?? 'paypal') as keyof typeof DETAIL_FIELDS] ?? [];
    for (const n of detailNames) {
      const row = form.querySelector<HTMLElement>(`[data-field="details.${n}"]`);
      if (row) row.hidden = !wanted.includes(n);
    }
  };
  methodSelect?.addEventListener('change', showDetails);
  showDetails();
  ctx.main.replaceChildren(
    h('h1', {}, 'Payouts'),
    h('p', {}, 'Balance: ', h('span', { class: 'big', 'data-testid': 'pub-balance' }, usd(b.balance_cents))),
    h(
      'p',
      {},
      `In payouts: ${usd(b.in_payouts_cents)}. Earnings move into the balance ${b.hold_days} days after each day ends (closed through ${b.closed_through ?? 'no day yet'}); a payout of the whole balance becomes due at the daily close once it reaches your threshold.`,
    ),
    h('h2', {}, 'Payout settings'),
    form,
    h('h2', {}, 'Payouts'),
    table(
      ['Payout', 'Created', 'Amount', 'Method', 'Status', 'Reference / reason', 'Paid'],
      payoutRows(payouts),
      'Payouts',
    ),
    h('h2', {}, 'Ledger'),
    table(
      ['Time', 'Kind', 'For', 'Amount', 'Balance after'],
      b.ledger.map((e) => [
        when(e.created_at),
        e.kind,
        e.kind === 'payout' ? `payout #${e.ref}` : e.ref,
        usd(e.amount_cents),
        usd(e.balance_after_cents),
      ]),
      'Balance ledger, newest first',
    ),
    h('h2', {}, 'Monthly statement'),
    statementPicker(
      'Statement',
      async (month) => {
        const s = await api.pub.payouts.statement.query({ month });
        return h(
          'p',
          {},
          `${s.month}: opening ${usd(s.opening_balance_cents)}, earnings ${usd(s.earnings_cents)}, adjustments ${usd(s.adjustments_cents)}, payouts ${usd(s.payouts_cents)}, closing ${usd(s.closing_balance_cents)}`,
        );
      },
      async (month) => (await api.pub.payouts.statement.query({ month, format: 'csv' })).csv ?? '',
    ),
  );
}

// ---------------------------------------------------------------- admins

function payoutActions(p: Payout, after: () => Promise<void>): HTMLElement {
  if (p.status === 'paid') return h('span', {}, p.reference ?? '');
  const reference = h('input', {
    type: 'text',
    'aria-label': `Reference for payout ${p.id}`,
    placeholder: 'Transfer reference',
  });
  const reason = h('input', {
    type: 'text',
    'aria-label': `Hold reason for payout ${p.id}`,
    placeholder: 'Reason to hold',
  });
  return h(
    'div',
    { class: 'row-actions' },
    reference,
    actionButton(
      'Mark paid',
      async () => {
        await api.admin.payoutPaid.mutate({ id: p.id, reference: reference.value });
        notify(`Payout ${p.id} marked paid`);
        await after();
      },
      { 'aria-label': `Mark payout ${p.id} paid`, class: 'primary' },
    ),
    p.status === 'due' ? reason : null,
    p.status === 'due'
      ? actionButton(
          'Hold',
          async () => {
            await api.admin.payoutHold.mutate({ id: p.id, reason: reason.value });
            notify(`Payout ${p.id} held`);
            await after();
          },
          { 'aria-label': `Hold payout ${p.id}` },
        )
      : null,
  );
}

/** Admins: payouts to send (due), held ones, and the ones paid. */
export async function payoutQueuePage(ctx: PageContext): Promise<void> {
  const status = (new URLSearchParams(location.search).get('status') ?? 'due') as 'due' | 'held' | 'paid';
  const { payouts } = await api.admin.listPayouts.query({ status, limit: 200 });
  const again = () => payoutQueuePage(ctx);
  ctx.main.replaceChildren(
    h('h1', {}, 'Payouts'),
    h(
      'div',
      { class: 'filters' },
      h(
        'nav',
        { 'aria-label': 'Payouts by status', class: 'tabs' },
        (['due', 'held', 'paid'] as const).map((s) =>
          h('a', { href: `${BASE}/payout-queue?status=${s}`, 'aria-current': s === status ? 'page' : null }, s),
        ),
      ),
      actionButton('Run the daily close now', async () => {
        const r = await api.admin.closePayouts.mutate();
        notify(`Closed ${r.closed} publisher-days, ${r.adjusted} adjustments, ${r.payoutsDue} payouts due`);
        await again();
      }),
    ),
    table(
      ['Payout', 'Publisher', 'Amount', 'Method and details', 'Created', 'Status', ''],
      payouts.map((p) => [
        `#${p.id}`,
        // The email is whom the money goes to; the id is what the publisher's statements and support know.
        h('span', {}, p.publisher_email || 'account removed', ' ', h('small', {}, `#${p.publisher_id}`)),
        usd(p.amount_cents),
        h(
          'div',
          {},
          h('strong', {}, p.method),
          h(
            'small',
            {},
            ' ',
            Object.entries(p.details)
              .map(([k, v]) => `${k}: ${v}`)
              .join(', '),
          ),
        ),
        when(p.created_at),
        h('span', {}, badge(p.status), p.hold_reason ? ` ${p.hold_reason}` : ''),
        payoutActions(p, again),
      ]),
      `Payouts (${status})`,
    ),
  );
}

/** Admins: one advertiser's deposits, each paid one refundable (at the provider, then off the balance). */
export async function advertiserDepositsPage(ctx: PageContext): Promise<void> {
  const advertiserId = Number(ctx.params.id);
  const { deposits, advertiser_email } = await api.admin.listDeposits.query({
    advertiser_id: advertiserId,
    limit: 200,
  });
  const again = () => advertiserDepositsPage(ctx);
  ctx.main.replaceChildren(
    h('h1', {}, `Deposits of ${advertiser_email}`),
    h(
      'p',
      {},
      'A refund of money already spent takes the balance below zero; the campaigns then stop serving until the next deposit.',
    ),
    table(
      ['Deposit', 'Created', 'Amount', 'Status', 'Receipt', 'Refunded', ''],
      deposits.map((d) => [
        `#${d.id}`,
        when(d.created_at),
        usd(d.amount_cents),
        badge(d.status),
        d.receipt_number ?? '',
        d.refunded_cents ? usd(d.refunded_cents) : '',
        d.status === 'paid'
          ? actionButton(
              'Refund',
              async () => {
                await api.admin.refundDeposit.mutate({ id: d.id });
                notify(`Deposit ${d.id} refunded`);
                await again();
              },
              { 'aria-label': `Refund deposit ${d.id}`, class: 'danger' },
            )
          : '',
      ]),
      'Deposits',
    ),
  );
}
