import { api, problem } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, badge, enableToggle, h, notify, table, uid } from '../dom.ts';
import { buildForm, list, num, text } from '../form.ts';
import type { PageContext } from '../router.ts';
import { BASE } from '../router.ts';

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

type ModerationItem = Outputs['admin']['moderationQueue']['creatives'][number];

/** What the ad looks like: the image or video, and the words the reader sees. */
function preview(c: ModerationItem): HTMLElement {
  return h(
    'div',
    { class: 'ad-preview' },
    c.image_url
      ? h('img', { src: c.image_url, alt: '', class: 'thumb' })
      : c.video_url
        ? h('video', { src: c.video_url, class: 'thumb', controls: true, preload: 'none', 'aria-label': 'Video' })
        : null,
    h(
      'div',
      {},
      h('strong', {}, c.title ?? `Creative ${c.id}`),
      c.body ? h('p', {}, c.body) : null,
      c.cta_text ? h('span', { class: 'cta' }, c.cta_text) : null,
    ),
  );
}

/**
 * A creative waiting for a decision, with what the decision rests on: whose it is, what the campaign sells,
 * where the ad leads. From the keyboard: A approves, R goes to the reason to reject, J and K move between items.
 */
function moderationItem(c: ModerationItem, after: () => Promise<void>): HTMLElement {
  const decision = verdict(
    `creative ${c.id}`,
    () => api.admin.approveCreative.mutate({ id: c.id }),
    (reason) => api.admin.rejectCreative.mutate({ id: c.id, reason }),
    after,
  );
  const item = h(
    'article',
    {
      class: 'moderation-item card',
      tabindex: 0,
      'aria-label': `Creative ${c.id}: ${c.title ?? c.format} by ${c.advertiser_email}`,
      'data-creative': c.id,
    },
    preview(c),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Advertiser'),
      h(
        'dd',
        {},
        h('a', { href: `${BASE}/directory/accounts/${c.advertiser_id}` }, c.advertiser_email || `#${c.advertiser_id}`),
      ),
      h('dt', {}, 'Campaign'),
      h(
        'dd',
        {},
        h('a', { href: `${BASE}/directory/campaigns/${c.campaign_id}` }, c.campaign_name || `#${c.campaign_id}`),
      ),
      h('dt', {}, 'Vertical'),
      h('dd', { 'data-testid': 'vertical' }, c.vertical ?? 'unknown'),
      h('dt', {}, 'Landing domain'),
      h(
        'dd',
        {},
        h(
          'a',
          { href: c.landing_url, target: '_blank', rel: 'noopener noreferrer', title: c.landing_url },
          c.landing_domain,
        ),
      ),
      h('dt', {}, 'Format'),
      h('dd', {}, c.format.replace(/_/g, ' ')),
    ),
    decision,
  );
  item.addEventListener('keydown', (ev) => {
    // Letters typed into the reason are the reason, not commands.
    if (ev.target !== item || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const key = ev.key.toLowerCase();
    const button = (name: string) =>
      decision.querySelector<HTMLButtonElement>(`button[aria-label="${name} creative ${c.id}"]`);
    if (key === 'a') button('Approve')?.click();
    else if (key === 'r') decision.querySelector<HTMLInputElement>('input')?.focus();
    else if (key === 'j' || key === 'k') {
      const sibling = key === 'j' ? item.nextElementSibling : item.previousElementSibling;
      if (sibling instanceof HTMLElement) sibling.focus();
    } else return;
    ev.preventDefault();
  });
  return item;
}

export async function moderationPage(ctx: PageContext): Promise<void> {
  const [{ creatives }, { sites }] = await Promise.all([
    api.admin.moderationQueue.query(),
    api.admin.siteQueue.query(),
  ]);
  // Whose each site is, by email: read by id in one request.
  const owners = sites.length
    ? (await api.admin.names.query({ sites: sites.map((s) => s.id).slice(0, 500) })).sites
    : [];
  const ownerOf = new Map(owners.map((o) => [o.id, o]));
  // After a decision the next item waits under the keyboard, as it did before the list was redrawn.
  const again = async () => {
    await moderationPage(ctx);
    ctx.main.querySelector<HTMLElement>('.moderation-item')?.focus();
  };
  ctx.main.replaceChildren(
    h('h1', {}, 'Moderation'),
    h('h2', {}, `Creatives (${creatives.length})`),
    creatives.length
      ? h(
          'p',
          { class: 'muted', id: 'moderation-keys' },
          'Keyboard: Tab to a creative, then A approves it, R writes the reason to reject it, J and K move to the next and previous one.',
        )
      : h('p', {}, 'Nothing waits for a decision.'),
    h(
      'div',
      { class: 'moderation-list' },
      creatives.map((c) => moderationItem(c, again)),
    ),
    h('h2', {}, `Sites (${sites.length})`),
    table(
      ['Domain', 'Publisher', 'Category', 'Verified by', 'Decision'],
      sites.map((s) => [
        h('a', { href: `https://${s.domain}/`, target: '_blank', rel: 'noopener noreferrer' }, s.domain),
        h(
          'a',
          { href: `${BASE}/directory/accounts/${s.publisher_id}` },
          ownerOf.get(s.id)?.publisher_email || `#${s.publisher_id}`,
        ),
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
