import { api } from '../api.ts';
import type { Inputs, Outputs } from '../api.ts';
import { BANNER_SIZES, FV_CORNERS, POP_TRIGGERS, SITE_CATEGORIES, ZONE_FORMATS } from '../choices.ts';
import { actionButton, badge, copyText, h, notify } from '../dom.ts';
import { buildForm, num, optNum, text } from '../form.ts';
import { controlsSection } from './publisher-controls.ts';
import { pushSetupSection } from './push-zone.ts';
import { PROMPT_LABELS } from '../push-setup.ts';
import type { PromptMoment } from '../push-setup.ts';

const PROMPT_MOMENTS = Object.keys(PROMPT_LABELS) as PromptMoment[];
import type { PageContext } from '../router.ts';

type Site = Outputs['pub']['sites']['get'];
type Zone = Outputs['pub']['zones']['get'];
type ZoneIn = Inputs['pub']['zones']['create'];

export const verificationTag = (s: Site): string => `<meta name="adnet-verification" content="${s.verification_code}">`;
export const widgetSnippet = (z: Zone): string => `<script src="${z.widget_url}"></script>`;
/** The snippet of the live preview: the widget asks GET /preview with the token rather than /imp (nothing counted). */
const previewSnippet = (z: Zone, token: string): string =>
  `<script src="${z.widget_url}" data-adnet-preview="${token}"></script>`;
/** Formats whose ads the widget does not render on the page (a player's video, a pop, a push notification): no label. */
const UNLABELLED: ReadonlySet<string> = new Set(['video', 'popunder', 'direct_link', 'push']);
/**
 * Formats with nothing on the page to preview: a player's video, a direct link, a push notification, and the floating
 * video (its VAST is a real ad request). A popunder zone's preview is a page to click.
 */
const PREVIEWLESS: ReadonlySet<string> = new Set(['video', 'direct_link', 'push', 'floating_video']);

/** A snippet to paste, with its copy button. */
export function copyBlock(label: string, value: string): HTMLElement {
  return h(
    'div',
    { class: 'copy-block' },
    // Focusable: a long snippet scrolls sideways, by keyboard too.
    h('code', { 'aria-label': label, tabindex: 0 }, value),
    actionButton(`Copy ${label.toLowerCase()}`, () => copyText(value, label)),
  );
}

/**
 * A video zone's VAST URLs: VAST 4.0 at the plain URL, and the same ad in VAST 3.0 and 2.0 (`?v=3`, `?v=2`)
 * for players that take no 4.0; the trackers count the same in every version.
 */
function vastBlocks(z: Zone): (HTMLElement | null)[] {
  if (!z.vast_url) return [null];
  return [
    copyBlock('VAST URL', z.vast_url),
    h(
      'p',
      { class: 'muted' },
      'VAST 4.0. For players that need an older version, the same ad in VAST 3.0 or 2.0 (impressions, quartiles and clicks count the same):',
    ),
    z.vast_urls ? copyBlock('VAST 3.0 URL', z.vast_urls['3.0']) : null,
    z.vast_urls ? copyBlock('VAST 2.0 URL', z.vast_urls['2.0']) : null,
  ];
}

function siteCard(s: Site, after: () => Promise<void>): HTMLElement {
  const unverified = s.status === 'draft' || s.status === 'rejected';
  return h(
    'article',
    { class: 'card', 'data-site': s.domain },
    h('h3', {}, s.domain, ' ', badge(s.status)),
    s.rejection_reason ? h('p', {}, `Rejected: ${s.rejection_reason}`) : null,
    unverified
      ? h(
          'div',
          {},
          h('p', {}, 'Paste this tag into the <head> of your home page, then verify:'),
          copyBlock('Verification tag', verificationTag(s)),
          h('p', {}, 'or serve the code as ', h('code', {}, `https://${s.domain}/.well-known/adnet-verification.txt`)),
          actionButton(
            'Verify',
            async () => {
              const r = await api.pub.sites.verify.mutate({ id: s.id }).catch((err: Error) => {
                notify(`Not verified: ${err.message}`, 'error');
                return null;
              });
              if (r) notify(`Verified by ${r.method}; the site is ${r.status.replace(/_/g, ' ')}`);
              await after();
            },
            { 'aria-label': `Verify ${s.domain}` },
          ),
        )
      : h('p', {}, s.verified_method ? `Verified by ${s.verified_method}.` : ''),
    h('p', {}, 'ads.txt line (add it to ', h('code', {}, `https://${s.domain}/ads.txt`), '):'),
    copyBlock('ads.txt line', s.ads_txt_line),
    h('p', { 'data-ads-txt': s.ads_txt_status ?? 'unchecked' }, adsTxtSummary(s)),
    actionButton(
      'Check ads.txt',
      async () => {
        const r = await api.pub.sites.checkAdsTxt.mutate({ id: s.id });
        notify(`ads.txt of ${s.domain}: ${ADS_TXT_WORDS[r.ads_txt_status ?? 'missing']}`);
        await after();
      },
      { 'aria-label': `Check ads.txt of ${s.domain}` },
    ),
    controlsSection({ site: s }, after),
  );
}

/** What the last ads.txt check found, in a publisher's words. */
const ADS_TXT_WORDS: Record<NonNullable<Site['ads_txt_status']>, string> = {
  found: 'the line is there',
  missing: 'the line is not there yet',
  unreachable: 'the file could not be fetched',
};
const adsTxtSummary = (s: Site): string =>
  s.ads_txt_status && s.ads_txt_checked_at
    ? `ads.txt: ${ADS_TXT_WORDS[s.ads_txt_status]} (checked ${new Date(s.ads_txt_checked_at).toLocaleString()}).`
    : 'ads.txt: not checked yet.';

/** Whether sellers.json names the publisher (`sellers_json_confidential`), with a button to change it. */
async function sellerSection(after: () => Promise<void>): Promise<HTMLElement> {
  const seller = await api.pub.seller.get.query();
  const hidden = seller.sellers_json_confidential;
  return h(
    'section',
    { 'aria-label': 'sellers.json' },
    h('h2', {}, 'sellers.json'),
    h(
      'p',
      {},
      `Seller id ${seller.seller_id}. `,
      hidden
        ? 'Listed as confidential: sellers.json shows your seller id without your name or domain.'
        : 'sellers.json names you by your first approved site.',
    ),
    actionButton(hidden ? 'Show my name in sellers.json' : 'List me as confidential in sellers.json', async () => {
      await api.pub.seller.update.mutate({ sellers_json_confidential: !hidden });
      notify(hidden ? 'sellers.json names you again' : 'sellers.json lists you as confidential');
      await after();
    }),
  );
}

export async function sitesPage(ctx: PageContext): Promise<void> {
  const { sites } = await api.pub.sites.list.query();
  const { form } = buildForm({
    label: 'Add site',
    submit: 'Add site',
    fields: [
      { name: 'domain', label: 'Domain', required: true, hint: 'e.g. example.com' },
      { name: 'category', label: 'Category', type: 'select', options: SITE_CATEGORIES, value: 'news' },
      { name: 'language', label: 'Language (ISO 639-1)', value: 'en' },
      { name: 'traffic_estimate_daily', label: 'Daily visits (estimate)', type: 'number', value: '1000' },
    ],
    async onSubmit(d) {
      await api.pub.sites.create.mutate({
        domain: text(d, 'domain'),
        category: text(d, 'category') as Site['category'],
        language: text(d, 'language'),
        traffic_estimate_daily: num(d, 'traffic_estimate_daily'),
      });
      notify('Site added');
      await sitesPage(ctx);
    },
  });
  const rerender = () => sitesPage(ctx);
  ctx.main.replaceChildren(
    h('h1', {}, 'Sites'),
    h('div', { class: 'cards' }, sites.length ? sites.map((s) => siteCard(s, rerender)) : h('p', {}, 'No sites yet.')),
    h('h2', {}, 'Add a site'),
    form,
    await sellerSection(rerender),
  );
}

/**
 * The live preview's page: the zone's snippet, and on a popunder zone a page to click on. A previewed pop is a real
 * one: it is counted and charged when it opens, and the visitor's cap then holds for the publisher's browser too.
 */
function previewPage(z: Zone, token: string): string {
  const pop =
    z.format === 'popunder'
      ? '<p style="font:14px system-ui;min-height:240px;cursor:pointer">Click anywhere on this page to open the pop.</p>'
      : '';
  return `<!doctype html><body>${pop}${previewSnippet(z, token)}</body>`;
}

/** A pop zone's settings, as its card says them. */
function popSummary(z: Zone): string {
  if (z.pop_freq_cap_hours === null) return '';
  const how =
    z.format === 'popunder'
      ? `, on the ${z.pop_trigger === 'any_click' ? 'next click until one opens' : 'first click'}, as ${z.pop_new_tab === false ? 'a window behind' : 'a new tab in front'}`
      : '';
  return `; one pop per visitor every ${z.pop_freq_cap_hours} h${how}`;
}

function zoneCard(z: Zone, site: Site | undefined, after: () => Promise<void>): HTMLElement {
  const preview = h('div', { class: 'preview' });
  return h(
    'article',
    { class: 'card', 'data-zone': z.name },
    h('h3', {}, z.name, ' ', badge(z.status)),
    h(
      'p',
      {},
      `${z.format.replace(/_/g, ' ')}${z.banner_width ? ` ${z.banner_width}x${z.banner_height}` : ''} on ${site?.domain ?? `site ${z.site_id}`}${popSummary(z)}`,
    ),
    UNLABELLED.has(z.format) ? null : h('p', { class: 'muted' }, `Every ad is labelled “${z.ad_label}”.`),
    z.go_url
      ? copyBlock('Direct link (put it behind any link)', z.go_url)
      : copyBlock('Widget snippet', widgetSnippet(z)),
    ...vastBlocks(z),
    h(
      'div',
      { class: 'row-actions' },
      actionButton(
        z.status === 'active' ? 'Pause' : 'Resume',
        async () => {
          await (z.status === 'active' ? api.pub.zones.pause : api.pub.zones.resume).mutate({ id: z.id });
          await after();
        },
        { 'aria-label': `${z.status === 'active' ? 'Pause' : 'Resume'} ${z.name}` },
      ),
      // A preview counts and charges nothing: the snippet carries a token the engine's /preview answers (15 minutes),
      // instead of /imp. Sandboxed without same-origin, so the ad's page cannot reach the cabinet's session. Video,
      // direct-link and push zones show nothing on a page to preview; a popunder zone's preview opens its pop on a
      // click, outside the sandbox as it would from the publisher's page, and that pop counts nothing either.
      PREVIEWLESS.has(z.format)
        ? null
        : actionButton(
            'Live preview',
            async () => {
              const { token } = await api.pub.zones.preview.mutate({ id: z.id });
              preview.replaceChildren(
                h('iframe', {
                  title: `Live preview of ${z.name}`,
                  srcdoc: previewPage(z, token),
                  sandbox: 'allow-scripts allow-popups allow-popups-to-escape-sandbox',
                  class: 'zone-frame',
                }),
              );
            },
            { 'aria-label': `Live preview of ${z.name}` },
          ),
    ),
    preview,
    pushSetupSection(z, site?.domain ?? '', after),
    site ? controlsSection({ site, zone: z }, after) : null,
  );
}

function zoneInput(d: FormData, format: ZoneIn['format']): ZoneIn {
  const input: ZoneIn = { site_id: num(d, 'site_id'), name: text(d, 'name'), format };
  if (!UNLABELLED.has(format)) input.ad_label = text(d, 'ad_label');
  if (format === 'banner') {
    const [w, hgt] = text(d, 'banner_size').split('x').map(Number);
    input.banner_width = w;
    input.banner_height = hgt;
  }
  if (format === 'floating_video') {
    input.fv_corner = text(d, 'fv_corner') as ZoneIn['fv_corner'];
    input.fv_delay_sec = optNum(d, 'fv_delay_sec');
    input.fv_freq_cap_hours = optNum(d, 'fv_freq_cap_hours');
  }
  if (format === 'popunder' || format === 'direct_link') input.pop_freq_cap_hours = optNum(d, 'pop_freq_cap_hours');
  if (format === 'popunder') {
    input.pop_trigger = text(d, 'pop_trigger') as ZoneIn['pop_trigger'];
    input.pop_new_tab = text(d, 'pop_new_tab') === 'new tab in front';
  }
  if (format === 'interstitial') {
    input.interstitial_delay_sec = optNum(d, 'interstitial_delay_sec');
    input.interstitial_close_after_sec = optNum(d, 'interstitial_close_after_sec');
    input.interstitial_freq_cap_hours = optNum(d, 'interstitial_freq_cap_hours');
  }
  if (format === 'push') {
    const on = text(d, 'push_prompt.on') as PromptMoment;
    input.push_prompt = on === 'delay' ? { on, delay_s: optNum(d, 'push_prompt.delay_s') } : { on };
  }
  return input;
}

export async function zonesPage(ctx: PageContext): Promise<void> {
  const [{ zones }, { sites }] = await Promise.all([api.pub.zones.list.query(), api.pub.sites.list.query()]);
  const byId = new Map(sites.map((s) => [s.id, s]));
  const handle = buildForm({
    label: 'Create zone',
    submit: 'Create zone',
    fields: [
      { name: 'site_id', label: 'Site', type: 'select', options: sites.map((s) => String(s.id)) },
      { name: 'name', label: 'Name', required: true },
      { name: 'format', label: 'Format', type: 'select', options: ZONE_FORMATS },
      {
        name: 'ad_label',
        label: 'Ad label',
        value: 'Ad',
        hint: 'Shown on every ad of the zone, e.g. Ad, Sponsored, Anzeige (up to 24 characters; it cannot be removed)',
      },
      { name: 'banner_size', label: 'Banner size', type: 'select', options: BANNER_SIZES },
      { name: 'fv_corner', label: 'Corner', type: 'select', options: FV_CORNERS },
      { name: 'fv_delay_sec', label: 'Delay before showing (seconds)', type: 'number', value: '5' },
      { name: 'fv_freq_cap_hours', label: 'Frequency cap (hours)', type: 'number', value: '1' },
      {
        name: 'push_prompt.on',
        label: 'Ask visitors for push permission',
        type: 'select',
        options: PROMPT_MOMENTS,
        value: 'click',
      },
      { name: 'push_prompt.delay_s', label: 'Seconds after the page loads', type: 'number', value: '10' },
      {
        name: 'pop_freq_cap_hours',
        label: 'One pop per visitor every (hours)',
        type: 'number',
        value: '24',
        hint: 'From 1 to 168. A visitor is a network and browser; within these hours it gets no other pop of this zone, on any page.',
      },
      {
        name: 'pop_trigger',
        label: 'Open the pop on',
        type: 'select',
        options: POP_TRIGGERS,
        value: 'first_click',
        hint: "First click: only the visitor's first click on a page can open it. Any click: each click until one opens (say, after a pop-up blocker refused one). At most one pop a page view either way.",
      },
      {
        name: 'pop_new_tab',
        label: 'Open it as',
        type: 'select',
        options: ['new tab in front', 'window behind'],
        value: 'new tab in front',
        hint: 'A window behind your page is a popunder; some browsers bring it to the front anyway. A pop the browser blocks is not counted, and you are paid for opened pops only.',
      },
      {
        name: 'interstitial_delay_sec',
        label: 'Show it after (seconds on the page)',
        type: 'number',
        value: '0',
        hint: '0-60. The ad covers the page after this long, or sooner when the visitor follows a link to another page of your site (that page opens once the ad is closed).',
      },
      {
        name: 'interstitial_close_after_sec',
        label: 'Close button after (seconds)',
        type: 'number',
        value: '3',
        hint: '0-10. Until then the visitor sees a countdown; Escape closes the ad too once the button shows.',
      },
      {
        name: 'interstitial_freq_cap_hours',
        label: 'One interstitial per visitor every (hours)',
        type: 'number',
        value: '24',
        hint: '1-168. Kept in the visitor’s browser: a visitor within it is not shown the ad, nor asked for one.',
      },
    ],
    async onSubmit(d) {
      const z = await api.pub.zones.create.mutate(zoneInput(d, text(d, 'format') as ZoneIn['format']));
      notify(`Zone ${z.name} created`);
      await zonesPage(ctx);
    },
  });
  const { form } = handle;
  // Site options show the domain; the value stays the id.
  form
    .querySelectorAll<HTMLOptionElement>('select[name=site_id] option')
    .forEach((o) => (o.textContent = byId.get(Number(o.value))?.domain ?? o.value));
  // Only the fields the chosen format takes are shown.
  const formatSelect = form.querySelector<HTMLSelectElement>('select[name=format]');
  const sync = () => {
    const f = formatSelect?.value;
    form.querySelectorAll<HTMLElement>('[data-field]').forEach((row) => {
      const name = row.dataset.field ?? '';
      row.hidden =
        (name === 'banner_size' && f !== 'banner') ||
        (name === 'ad_label' && UNLABELLED.has(f ?? '')) ||
        (name.startsWith('fv_') && f !== 'floating_video') ||
        (name.startsWith('push_prompt') && f !== 'push') ||
        (name === 'pop_freq_cap_hours' && f !== 'popunder' && f !== 'direct_link') ||
        ((name === 'pop_trigger' || name === 'pop_new_tab') && f !== 'popunder') ||
        (name.startsWith('interstitial_') && f !== 'interstitial') ||
        (name === 'push_prompt.delay_s' && promptSelect?.value !== 'delay');
    });
  };
  const promptSelect = form.querySelector<HTMLSelectElement>('select[name="push_prompt.on"]');
  formatSelect?.addEventListener('change', sync);
  promptSelect?.addEventListener('change', sync);
  sync();
  ctx.main.replaceChildren(
    h('h1', {}, 'Zones'),
    h(
      'div',
      { class: 'cards' },
      zones.length
        ? zones.map((z) => zoneCard(z, byId.get(z.site_id), () => zonesPage(ctx)))
        : h('p', {}, 'No zones yet.'),
    ),
    h('h2', {}, 'Create a zone'),
    sites.length ? form : h('p', {}, 'Add a site first.'),
  );
}
