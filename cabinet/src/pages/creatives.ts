import { api } from '../api.ts';
import type { Inputs, Outputs } from '../api.ts';
import { ORIENTATIONS } from '../choices.ts';
import { actionButton, badge, h, notify, table } from '../dom.ts';
import { buildForm, optNum, text } from '../form.ts';
import { landingMacroHelp } from '../landing-help.ts';
import { count, ctrOf, percent, spend } from '../format.ts';
import { moderationWaitText } from '@adnet/schemas/moderation-wait';
/** Formats whose ad is the landing page opened whole: no image, no text shown. */
const POP: ReadonlySet<string> = new Set(['popunder', 'direct_link']);
import type { FieldSpec } from '../form.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type Creative = Outputs['adv']['creatives']['get'];
const VIDEO = new Set(['video', 'floating_video']);
export const UPLOAD_FORM = 'Upload creative';
export const EDIT_FORM = 'Edit creative';
/** What the edit form may change besides the weight; any of these sends the creative back to moderation. */
const CONTENT = ['title', 'body', 'cta_text', 'landing_url', 'video_url'] as const;

function preview(c: Creative): HTMLElement | string {
  if (c.image_url) return h('img', { src: c.image_url, alt: c.title ?? 'creative image', class: 'thumb' });
  if (c.video_url) return h('a', { href: c.video_url, target: '_blank', rel: 'noopener' }, 'video');
  return '';
}

const weightField = (value: string): FieldSpec => ({
  name: 'weight',
  label: 'Weight (0-100)',
  type: 'number',
  step: '1',
  value,
  hint: "Its share of traffic under weighted rotation, relative to the campaign's other creatives.",
});

/** The text and links of a creative, filled from `cr` when editing one. */
function contentFields(c: Campaign, cr?: Creative): FieldSpec[] {
  // A pop is its landing page alone: a name for the advertiser and the URL.
  if (POP.has(c.format))
    return [
      { name: 'title', label: 'Name (for you; not shown)', value: cr?.title ?? '' },
      { name: 'landing_url', label: 'Landing URL', type: 'url', required: true, value: cr?.landing_url ?? '' },
    ];
  return [
    { name: 'title', label: 'Title', value: cr?.title ?? '' },
    { name: 'body', label: 'Body', type: 'textarea', value: cr?.body ?? '' },
    { name: 'cta_text', label: 'Call to action', value: cr?.cta_text ?? '' },
    { name: 'landing_url', label: 'Landing URL', type: 'url', required: true, value: cr?.landing_url ?? '' },
    ...(VIDEO.has(c.format)
      ? [{ name: 'video_url', label: 'Video URL', type: 'url' as const, value: cr?.video_url ?? '' }]
      : []),
  ];
}

function uploadFields(c: Campaign): FieldSpec[] {
  const video = VIDEO.has(c.format);
  if (POP.has(c.format)) return [...contentFields(c), weightField('100')];
  return [
    ...contentFields(c),
    video
      ? { name: 'orientation', label: 'Orientation', type: 'select' as const, options: ORIENTATIONS }
      : {
          name: 'image',
          label: c.format === 'banner' ? 'Image (exactly a banner size)' : 'Image',
          type: 'file',
          accept: 'image/png,image/jpeg,image/gif,image/webp',
        },
    weightField('100'),
  ];
}

function withLandingHelp(form: HTMLFormElement): void {
  const landing = form.querySelector<HTMLInputElement>('input[name="landing_url"]');
  if (landing) landing.parentElement?.append(landingMacroHelp(landing));
}

/**
 * The edit form of one creative. Only what differs from the stored creative is sent, so that changing
 * the weight alone keeps an approved creative serving (the API re-moderates only new content).
 */
function editForm(c: Campaign, cr: Creative, done: () => Promise<void>, cancel: () => void): HTMLElement {
  const { form } = buildForm({
    label: EDIT_FORM,
    submit: 'Save creative',
    fields: [...contentFields(c, cr), weightField(String(cr.weight))],
    async onSubmit(d) {
      const input: Inputs['adv']['creatives']['update'] = { id: cr.id };
      for (const f of CONTENT) if (d.has(f) && text(d, f) !== (cr[f] ?? '')) input[f] = text(d, f);
      const weight = optNum(d, 'weight');
      if (weight !== cr.weight) input.weight = weight;
      const saved = await api.adv.creatives.update.mutate(input);
      notify(
        saved.status === 'pending_moderation' && cr.status !== 'pending_moderation'
          ? 'Creative saved; it is back in moderation'
          : 'Creative saved',
      );
      await done();
    },
  });
  withLandingHelp(form);
  const noteId = `edit-creative-${cr.id}-note`;
  form.setAttribute('aria-describedby', noteId);
  form
    .querySelector('.field')
    ?.before(
      h(
        'p',
        { id: noteId, class: 'muted' },
        'Changing the text or links sends the creative back to moderation: it stops serving until it is approved again. Changing only the weight does not.',
      ),
    );
  form.querySelector('.actions')?.append(h('button', { type: 'button', onclick: cancel }, 'Cancel'));
  return h(
    'div',
    { class: 'creative-edit' },
    h('h3', { id: `edit-creative-${cr.id}-h`, tabindex: -1 }, `Edit creative “${cr.title ?? `#${cr.id}`}”`),
    form,
  );
}

/** Edit, pause, resume and archive, as the creative's state allows (the API refuses the rest). */
function creativeButtons(cr: Creative, after: () => Promise<void>, edit: (cr: Creative) => void): HTMLElement[] {
  const move = (label: string, action: 'pause' | 'resume' | 'archive') =>
    actionButton(
      label,
      async () => {
        await api.adv.creatives[action].mutate({ id: cr.id });
        notify(`Creative ${cr.title ?? cr.id}: ${action}d`);
        await after();
      },
      { 'aria-label': `${label} creative #${cr.id}`, class: action === 'archive' ? 'danger' : null },
    );
  const out: HTMLElement[] = [];
  if (cr.status !== 'archived')
    out.push(h('button', { type: 'button', 'aria-label': `Edit creative #${cr.id}`, onclick: () => edit(cr) }, 'Edit'));
  if (cr.status === 'approved') out.push(move('Pause', 'pause'));
  if (cr.status === 'paused') out.push(move('Resume', 'resume'));
  if (cr.status !== 'archived') out.push(move('Archive', 'archive'));
  return out;
}

/** The campaign's creatives with their moderation state, and the upload form with a preview. */
/** A creative's own figures over the campaign page's seven days (the statistics grouped by creative). */
export interface CreativeFigures {
  impressions: number;
  clicks: number;
  spent_nano: number;
}

/**
 * The campaign's creatives, each with its figures, and the upload form. `changed` runs after an upload, an edit or a
 * state change, so what the page says elsewhere (its checklist) follows without a reload.
 */
export async function creativesSection(
  c: Campaign,
  figures: ReadonlyMap<number, CreativeFigures> = new Map(),
  changed: () => Promise<void> = () => Promise.resolve(),
): Promise<HTMLElement> {
  const section = h('section', { 'aria-labelledby': 'creatives-h' });
  let shown = false;
  const editing = h('div', {});
  const closeEdit = () => editing.replaceChildren();
  const openEdit = (cr: Creative) => {
    editing.replaceChildren(
      editForm(
        c,
        cr,
        async () => {
          closeEdit();
          await render();
        },
        closeEdit,
      ),
    );
    editing.querySelector<HTMLElement>('h3')?.focus();
  };
  const render = async () => {
    const { creatives } = await api.adv.creatives.list.query({ campaign_id: c.id });
    const thumb = h('img', { class: 'thumb preview', alt: 'Preview of the chosen image', hidden: true });
    const { form } = buildForm({
      label: UPLOAD_FORM,
      submit: 'Upload creative',
      fields: uploadFields(c),
      async onSubmit(d) {
        d.set('campaign_id', String(c.id));
        const image = d.get('image');
        // An empty file input still sends a part; the API reads "no image" from its absence.
        if (image instanceof File && image.size === 0) d.delete('image');
        for (const [k, v] of [...d.entries()]) if (v === '') d.delete(k);
        const created = await api.adv.creatives.create.mutate(d);
        notify(`Creative uploaded; review takes ${moderationWaitText(created.moderation_eta_seconds)}`);
        await render();
      },
    });
    const file = form.querySelector<HTMLInputElement>('input[type=file]');
    file?.addEventListener('change', () => {
      const f = file.files?.[0];
      thumb.hidden = !f;
      if (f) thumb.src = URL.createObjectURL(f);
    });
    file?.parentElement?.append(thumb);
    withLandingHelp(form);
    section.replaceChildren(
      h('h2', { id: 'creatives-h' }, 'Creatives'),
      table(
        [
          'Preview',
          'Title',
          'Status',
          'Impressions (7 days)',
          'Clicks',
          'CTR',
          'Spend',
          'Weight',
          'Rejection reason',
          '',
        ],
        creatives.map((cr) => [
          preview(cr),
          cr.title ?? '',
          badge(cr.status),
          count(figures.get(cr.id)?.impressions ?? 0),
          count(figures.get(cr.id)?.clicks ?? 0),
          percent(ctrOf(figures.get(cr.id)?.clicks ?? 0, figures.get(cr.id)?.impressions ?? 0)),
          spend(figures.get(cr.id)?.spent_nano ?? 0),
          String(cr.weight),
          cr.rejection_reason ?? '',
          h('span', { class: 'row-actions' }, creativeButtons(cr, render, openEdit)),
        ]),
        'Creatives of this campaign',
      ),
      editing,
      h('h3', {}, 'Upload a creative'),
      form,
    );
    if (shown) await changed();
    shown = true;
  };
  await render();
  return section;
}

/** Puts text into the upload form (from an AI variant) and moves the focus there. */
export function prefillCreative(fields: Record<string, string>): void {
  const form = document.querySelector<HTMLFormElement>(`form[aria-label="${UPLOAD_FORM}"]`);
  if (!form) return;
  for (const [name, value] of Object.entries(fields)) {
    const input = form.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[name="${name}"]`);
    if (input) {
      input.value = value;
      // The macro help's preview follows the field.
      input.dispatchEvent(new Event('input'));
    }
  }
  form.scrollIntoView({ behavior: 'smooth' });
  form.querySelector<HTMLElement>('[name="landing_url"]')?.focus();
}
