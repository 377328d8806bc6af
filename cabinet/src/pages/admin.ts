import { api, problem } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, badge, enableToggle, h, notify, table, uid, usd } from '../dom.ts';
import { buildForm, list, num, text } from '../form.ts';
import type { PageContext } from '../router.ts';

type Partner = Outputs['admin']['listPartners']['partners'][number];

/** Approve, or reject with a reason (the reason field sits beside the button). */
function verdict(
  label: string,
  approve: () => Promise<unknown>,
  reject: (reason: string) => Promise<unknown>,
  after: () => Promise<void>,
): HTMLElement {
  const errId = uid('reason-error');
  const reason = h('input', {
    type: 'text',
    'aria-label': `Rejection reason for ${label}`,
    placeholder: 'Reason to reject',
    'aria-describedby': errId,
  });
  const err = h('p', { class: 'field-error', id: errId, hidden: true });
  return h(
    'div',
    { class: 'row-actions' },
    actionButton(
      'Approve',
      async () => {
        await approve();
        notify(`${label} approved`);
        await after();
      },
      { 'aria-label': `Approve ${label}`, class: 'primary' },
    ),
    reason,
    actionButton(
      'Reject',
      async () => {
        err.hidden = true;
        reason.removeAttribute('aria-invalid');
        try {
          await reject(reason.value);
        } catch (e) {
          const message = problem(e).fields.reason;
          if (!message) throw e;
          // The API's message for the reason goes beside the reason field.
          err.textContent = message;
          err.hidden = false;
          reason.setAttribute('aria-invalid', 'true');
          reason.focus();
          return;
        }
        notify(`${label} rejected`);
        await after();
      },
      { class: 'danger', 'aria-label': `Reject ${label}` },
    ),
    err,
  );
}

export async function moderationPage(ctx: PageContext): Promise<void> {
  const [{ creatives }, { sites }] = await Promise.all([
    api.admin.moderationQueue.query(),
    api.admin.siteQueue.query(),
  ]);
  const again = () => moderationPage(ctx);
  ctx.main.replaceChildren(
    h('h1', {}, 'Moderation'),
    h('h2', {}, `Creatives (${creatives.length})`),
    table(
      ['Preview', 'Creative', 'Landing page', 'Decision'],
      creatives.map((c) => [
        c.image_url
          ? h('img', { src: c.image_url, alt: c.title ?? 'creative', class: 'thumb' })
          : c.video_url
            ? h('a', { href: c.video_url }, 'video')
            : '',
        h(
          'div',
          {},
          h('strong', {}, c.title ?? `Creative ${c.id}`),
          h('p', {}, c.body ?? ''),
          h('small', {}, `${c.format} · campaign ${c.campaign_id}`),
        ),
        h('a', { href: c.landing_url, target: '_blank', rel: 'noopener noreferrer' }, c.landing_url),
        verdict(
          `creative ${c.id}`,
          () => api.admin.approveCreative.mutate({ id: c.id }),
          (reason) => api.admin.rejectCreative.mutate({ id: c.id, reason }),
          again,
        ),
      ]),
      'Creatives waiting for moderation',
    ),
    h('h2', {}, `Sites (${sites.length})`),
    table(
      ['Domain', 'Category', 'Verified by', 'Decision'],
      sites.map((s) => [
        h('a', { href: `https://${s.domain}/`, target: '_blank', rel: 'noopener noreferrer' }, s.domain),
        s.category,
        s.verified_method ?? '',
        verdict(
          `site ${s.domain}`,
          () => api.admin.approveSite.mutate({ id: s.id }),
          (reason) => api.admin.rejectSite.mutate({ id: s.id, reason }),
          again,
        ),
      ]),
      'Sites waiting for review',
    ),
  );
}

function partnerRow(p: Partner, after: () => Promise<void>) {
  const edit = buildForm({
    label: `Edit partner ${p.name}`,
    submit: 'Save',
    fields: [
      { name: 'allowed_ips', label: 'Allowed IPs / CIDRs', value: p.allowed_ips.join(', ') },
      { name: 'qps_limit', label: 'QPS limit', type: 'number', value: String(p.qps_limit) },
    ],
    async onSubmit(d) {
      await api.admin.updatePartner.mutate({
        id: p.id,
        allowed_ips: list(d, 'allowed_ips'),
        qps_limit: num(d, 'qps_limit'),
      });
      notify(`Partner ${p.name} saved`);
      await after();
    },
  });
  return [
    p.name,
    badge(p.status),
    h('details', {}, h('summary', {}, `${p.allowed_ips.join(', ')} · ${p.qps_limit} QPS`), edit.form),
    enableToggle(
      p,
      (enable) => (enable ? api.admin.enablePartner : api.admin.disablePartner).mutate({ id: p.id }),
      after,
    ),
  ];
}

export async function partnersPage(ctx: PageContext): Promise<void> {
  const { partners } = await api.admin.listPartners.query();
  const again = () => partnersPage(ctx);
  const { form } = buildForm({
    label: 'Add partner',
    submit: 'Add partner',
    fields: [
      { name: 'name', label: 'Name', required: true },
      { name: 'allowed_ips', label: 'Allowed IPs / CIDRs (comma-separated)', required: true },
      { name: 'qps_limit', label: 'QPS limit', type: 'number', value: '100' },
    ],
    async onSubmit(d) {
      await api.admin.createPartner.mutate({
        name: text(d, 'name'),
        allowed_ips: list(d, 'allowed_ips'),
        qps_limit: num(d, 'qps_limit'),
      });
      notify('Partner added');
      await again();
    },
  });
  ctx.main.replaceChildren(
    h('h1', {}, 'Partners'),
    table(
      ['Name', 'Status', 'Allow-list and limit', ''],
      partners.map((p) => partnerRow(p, again)),
      'OpenRTB partners',
    ),
    h('h2', {}, 'Add a partner'),
    form,
  );
}

export async function advertisersPage(ctx: PageContext): Promise<void> {
  const { advertisers } = await api.admin.listAdvertisers.query({ limit: 500 });
  const again = () => advertisersPage(ctx);
  ctx.main.replaceChildren(
    h('h1', {}, 'Advertisers'),
    table(
      ['Email', 'Balance', 'Credit'],
      advertisers.map((a) => [
        h(
          'span',
          {},
          a.email,
          ' ',
          h('a', { href: `/cabinet/advertisers/${a.id}/deposits`, 'aria-label': `Deposits of ${a.email}` }, 'deposits'),
        ),
        usd(a.balance_cents),
        buildForm({
          label: `Credit ${a.email}`,
          submit: 'Credit',
          fields: [{ name: 'amount_usd', label: 'Amount (USD)', type: 'number', step: '0.01' }],
          async onSubmit(d) {
            const usdAmount = num(d, 'amount_usd');
            await api.admin.creditAdvertiser.mutate({ id: a.id, amount_cents: Math.round(usdAmount * 100) });
            notify(`Credited ${a.email}`);
            await again();
          },
        }).form,
      ]),
      'Advertisers and balances',
    ),
  );
}
