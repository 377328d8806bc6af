import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { badge, h, notify, table, usd } from '../dom.ts';
import { buildForm, num, text } from '../form.ts';
import type { PageContext } from '../router.ts';
import { BASE, navigate } from '../router.ts';

// The admin's directory: advertisers, publishers, sites and campaigns found by name, filtered, sorted and
// paged (the admin API's /api/admin/search/*), each opening its own page. docs/admin-directory.md.

const KINDS = ['advertisers', 'publishers', 'sites', 'campaigns'] as const;
type Kind = (typeof KINDS)[number];
const KIND_LABELS: Record<Kind, string> = {
  advertisers: 'Advertisers',
  publishers: 'Publishers',
  sites: 'Sites',
  campaigns: 'Campaigns',
};
const SORTS: Record<Kind, readonly string[]> = {
  advertisers: ['id', 'email', 'balance', 'created_at'],
  publishers: ['id', 'email', 'sites', 'created_at'],
  sites: ['id', 'domain', 'status', 'publisher'],
  campaigns: ['id', 'name', 'status', 'advertiser'],
};
const STATUSES: Partial<Record<Kind, readonly string[]>> = {
  sites: ['draft', 'pending_review', 'approved', 'rejected'],
  campaigns: ['draft', 'active', 'paused', 'archived'],
};
const PAGE = 25;

export const accountHref = (id: number): string => `${BASE}/directory/accounts/${id}`;
export const campaignHref = (id: number): string => `${BASE}/directory/campaigns/${id}`;
const day = (iso: string): string => (iso ? new Date(iso).toLocaleDateString() : '');

interface DirectoryState {
  kind: Kind;
  q: string;
  sort: string;
  dir: 'asc' | 'desc';
  status: string;
  offset: number;
}

/** The directory's view lives in the URL: a search can be bookmarked, shared and reloaded. */
function readState(): DirectoryState {
  const q = new URLSearchParams(location.search);
  const kind = (KINDS as readonly string[]).includes(q.get('kind') ?? '') ? (q.get('kind') as Kind) : 'campaigns';
  const sort = q.get('sort') ?? '';
  const status = q.get('status') ?? '';
  return {
    kind,
    q: (q.get('q') ?? '').slice(0, 100),
    sort: SORTS[kind].includes(sort) ? sort : 'id',
    dir: q.get('dir') === 'desc' ? 'desc' : 'asc',
    status: STATUSES[kind]?.includes(status) ? status : '',
    offset: Math.max(0, Math.floor(Number(q.get('offset')) || 0)),
  };
}

function stateHref(s: DirectoryState): string {
  const q = new URLSearchParams({ kind: s.kind });
  if (s.q) q.set('q', s.q);
  if (s.sort !== 'id') q.set('sort', s.sort);
  if (s.dir !== 'asc') q.set('dir', s.dir);
  if (s.status) q.set('status', s.status);
  if (s.offset) q.set('offset', String(s.offset));
  return `/directory?${q}`;
}

async function results(s: DirectoryState): Promise<{ total: number; node: HTMLElement }> {
  const page = { q: s.q, dir: s.dir, offset: s.offset, limit: PAGE };
  const email = (id: number, address: string) => h('a', { href: accountHref(id) }, address || `account #${id}`);
  if (s.kind === 'advertisers') {
    const r = await api.admin.searchAdvertisers.query({ ...page, sort: s.sort as 'id' });
    return {
      total: r.total,
      node: table(
        ['Advertiser', 'Id', 'Balance', 'Campaigns', 'Since'],
        r.items.map((a) => [email(a.id, a.email), `#${a.id}`, usd(a.balance_cents), a.campaigns, day(a.created_at)]),
        'Advertisers',
      ),
    };
  }
  if (s.kind === 'publishers') {
    const r = await api.admin.searchPublishers.query({ ...page, sort: s.sort as 'id' });
    return {
      total: r.total,
      node: table(
        ['Publisher', 'Id', 'Sites', 'Since'],
        r.items.map((p) => [email(p.id, p.email), `#${p.id}`, p.sites, day(p.created_at)]),
        'Publishers',
      ),
    };
  }
  const status = s.status ? { status: s.status } : {};
  if (s.kind === 'sites') {
    const r = await api.admin.searchSites.query({ ...page, ...status, sort: s.sort as 'id' } as Parameters<
      typeof api.admin.searchSites.query
    >[0]);
    return {
      total: r.total,
      node: table(
        ['Site', 'Id', 'Status', 'Category', 'Publisher'],
        r.items.map((x) => [
          h('a', { href: `https://${x.domain}/`, target: '_blank', rel: 'noopener noreferrer' }, x.domain),
          `#${x.id}`,
          badge(x.status),
          x.category,
          email(x.publisher_id, x.publisher_email),
        ]),
        'Sites',
      ),
    };
  }
  const r = await api.admin.searchCampaigns.query({ ...page, ...status, sort: s.sort as 'id' } as Parameters<
    typeof api.admin.searchCampaigns.query
  >[0]);
  return {
    total: r.total,
    node: table(
      ['Campaign', 'Id', 'Status', 'Format', 'Vertical', 'Advertiser'],
      r.items.map((c) => [
        h('a', { href: campaignHref(c.id) }, c.name),
        `#${c.id}`,
        badge(c.status),
        c.format.replace(/_/g, ' '),
        c.vertical,
        email(c.advertiser_id, c.advertiser_email),
      ]),
      'Campaigns',
    ),
  };
}

/** Admins: find an advertiser, publisher, site or campaign by name, filter, sort, page, and open it. */
export async function directoryPage(ctx: PageContext): Promise<void> {
  const s = readState();
  const { total, node } = await results(s);
  const { form } = buildForm({
    label: 'Search the directory',
    submit: 'Search',
    fields: [
      {
        name: 'q',
        label: 'Name, email, domain or id',
        type: 'text',
        value: s.q,
        autocomplete: 'off',
      },
      { name: 'sort', label: 'Sort by', type: 'select', options: SORTS[s.kind], value: s.sort },
      { name: 'dir', label: 'Order', type: 'select', options: ['asc', 'desc'], value: s.dir },
      ...(STATUSES[s.kind]
        ? [
            {
              name: 'status',
              label: 'Status',
              type: 'select' as const,
              options: ['', ...(STATUSES[s.kind] ?? [])],
              optionLabel: (o: string) => (o ? o.replace(/_/g, ' ') : 'any'),
              value: s.status,
            },
          ]
        : []),
    ],
    onSubmit(d) {
      navigate(
        stateHref({
          ...s,
          q: text(d, 'q'),
          sort: text(d, 'sort') || 'id',
          dir: text(d, 'dir') === 'desc' ? 'desc' : 'asc',
          status: d.has('status') ? text(d, 'status') : '',
          offset: 0,
        }),
      );
      return Promise.resolve();
    },
  });
  form.classList.add('search-form');
  const from = total ? s.offset + 1 : 0;
  const to = Math.min(s.offset + PAGE, total);
  ctx.main.replaceChildren(
    h('h1', {}, 'Directory'),
    h(
      'nav',
      { 'aria-label': 'What to find', class: 'tabs' },
      KINDS.map((k) =>
        h(
          'a',
          {
            href: `${BASE}${stateHref({ kind: k, q: s.q, sort: 'id', dir: 'asc', status: '', offset: 0 })}`,
            'aria-current': k === s.kind ? 'page' : null,
          },
          KIND_LABELS[k],
        ),
      ),
    ),
    form,
    h('p', { role: 'status' }, total ? `${from}–${to} of ${total}` : 'Nothing found'),
    node,
    h(
      'nav',
      { 'aria-label': 'Pages', class: 'pager' },
      s.offset > 0
        ? h('a', { href: `${BASE}${stateHref({ ...s, offset: Math.max(0, s.offset - PAGE) })}` }, 'Previous')
        : null,
      to < total ? h('a', { href: `${BASE}${stateHref({ ...s, offset: s.offset + PAGE })}` }, 'Next') : null,
    ),
  );
}

type Account = Outputs['admin']['account'];

/** The credit form of an advertiser's page: an amount and the reason the ledger keeps beside it. */
function creditForm(a: Account, after: () => Promise<void>): HTMLElement {
  return buildForm({
    label: 'Credit this account',
    submit: 'Credit',
    fields: [
      { name: 'amount_usd', label: 'Amount (USD)', type: 'number', step: '0.01', required: true },
      {
        name: 'reason',
        label: 'Reason',
        required: true,
        hint: 'Kept in the ledger beside the amount; the advertiser sees it on their Billing page.',
      },
    ],
    async onSubmit(d, handle) {
      const reason = text(d, 'reason');
      // The ledger keeps why money appeared: an empty reason is refused here, before any money moves.
      if (!reason) return handle.showErrors({ reason: 'must not be empty' });
      const amount = num(d, 'amount_usd');
      await api.admin.creditAdvertiser.mutate({ id: a.id, amount_cents: Math.round(amount * 100), reason });
      notify(`Credited ${a.email} ${usd(Math.round(amount * 100))}`);
      await after();
    },
  }).form;
}

/** Admins: one account. An advertiser's balance, ledger, campaigns and credit; a publisher's sites and zones. */
export async function adminAccountPage(ctx: PageContext): Promise<void> {
  const a = await api.admin.account.query({ id: Number(ctx.params.id) });
  const again = () => adminAccountPage(ctx);
  const head = [h('h1', {}, a.email), h('p', {}, `${a.role} #${a.id} · since ${day(a.created_at)}`)];
  if (a.role === 'advertiser') {
    ctx.main.replaceChildren(
      ...head,
      h('p', {}, 'Balance: ', h('span', { class: 'big', 'data-testid': 'account-balance' }, usd(a.balance_cents ?? 0))),
      h('p', {}, h('a', { href: `${BASE}/advertisers/${a.id}/deposits` }, 'Deposits and refunds')),
      h('h2', {}, 'Credit'),
      creditForm(a, again),
      h('h2', {}, 'Campaigns'),
      table(
        ['Campaign', 'Id', 'Status', 'Format', 'Vertical'],
        a.campaigns.map((c) => [
          h('a', { href: campaignHref(c.id) }, c.name),
          `#${c.id}`,
          badge(c.status),
          c.format.replace(/_/g, ' '),
          c.vertical,
        ]),
        'Campaigns',
      ),
      h('h2', {}, 'Ledger'),
      table(
        ['Time', 'Kind', 'Amount', 'Balance after', 'Reason'],
        a.ledger.map((e) => [
          new Date(e.created_at).toLocaleString(),
          e.kind,
          usd(e.amount_cents),
          usd(e.balance_after_cents),
          e.reason,
        ]),
        'Ledger, newest first',
      ),
    );
    return;
  }
  const siteName = new Map(a.sites.map((x) => [x.id, x.domain]));
  ctx.main.replaceChildren(
    ...head,
    ...(a.role === 'publisher'
      ? [
          h('h2', {}, 'Sites'),
          table(
            ['Site', 'Id', 'Status', 'Category'],
            a.sites.map((x) => [x.domain, `#${x.id}`, badge(x.status), x.category]),
            'Sites',
          ),
          h('h2', {}, 'Zones'),
          table(
            ['Zone', 'Id', 'Subid', 'Format', 'Site'],
            a.zones.map((z) => [
              z.name,
              `#${z.id}`,
              h('code', {}, z.subid),
              z.format.replace(/_/g, ' '),
              siteName.get(z.site_id) ?? `#${z.site_id}`,
            ]),
            'Zones',
          ),
        ]
      : []),
  );
}

/** Admins: one campaign of any advertiser, with its creatives and where they lead. */
export async function adminCampaignPage(ctx: PageContext): Promise<void> {
  const c = await api.admin.campaign.query({ id: Number(ctx.params.id) });
  ctx.main.replaceChildren(
    h('h1', {}, c.name),
    h(
      'p',
      {},
      `Campaign #${c.id} of `,
      h('a', { href: accountHref(c.advertiser_id) }, c.advertiser_email || `advertiser #${c.advertiser_id}`),
    ),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Status'),
      h('dd', {}, badge(c.status)),
      h('dt', {}, 'Format'),
      h('dd', {}, c.format.replace(/_/g, ' ')),
      h('dt', {}, 'Vertical'),
      h('dd', {}, c.vertical),
      h('dt', {}, 'Daily budget'),
      h('dd', {}, usd(c.daily_budget_cents)),
      h('dt', {}, 'Created'),
      h('dd', {}, day(c.created_at)),
    ),
    h('h2', {}, 'Creatives'),
    table(
      ['Creative', 'Id', 'Status', 'Landing page'],
      c.creatives.map((cr) => [
        cr.title ?? `Creative #${cr.id}`,
        `#${cr.id}`,
        badge(cr.status),
        h('a', { href: cr.landing_url, target: '_blank', rel: 'noopener noreferrer' }, cr.landing_url),
      ]),
      'Creatives',
    ),
  );
}
