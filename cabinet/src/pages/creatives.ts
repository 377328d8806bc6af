import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { ORIENTATIONS } from '../choices.ts';
import { actionButton, badge, h, notify, table } from '../dom.ts';
import { buildForm } from '../form.ts';
import { landingMacroHelp } from '../landing-help.ts';
import type { FieldSpec } from '../form.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type Creative = Outputs['adv']['creatives']['get'];
const VIDEO = new Set(['video', 'floating_video']);
export const UPLOAD_FORM = 'Upload creative';

function preview(c: Creative): HTMLElement | string {
  if (c.image_url) return h('img', { src: c.image_url, alt: c.title ?? 'creative image', class: 'thumb' });
  if (c.video_url) return h('a', { href: c.video_url, target: '_blank', rel: 'noopener' }, 'video');
  return '';
}

function uploadFields(c: Campaign): FieldSpec[] {
  const video = VIDEO.has(c.format);
  return [
    { name: 'title', label: 'Title' },
    { name: 'body', label: 'Body', type: 'textarea' },
    { name: 'cta_text', label: 'Call to action' },
    { name: 'landing_url', label: 'Landing URL', type: 'url', required: true },
    video
      ? { name: 'video_url', label: 'Video URL', type: 'url' }
      : {
          name: 'image',
          label: c.format === 'banner' ? 'Image (exactly a banner size)' : 'Image',
          type: 'file',
          accept: 'image/png,image/jpeg,image/gif,image/webp',
        },
    ...(video ? [{ name: 'orientation', label: 'Orientation', type: 'select' as const, options: ORIENTATIONS }] : []),
  ];
}

/** Pause, resume and archive, as the creative's state allows (the API refuses the rest). */
function creativeButtons(cr: Outputs['adv']['creatives']['get'], after: () => Promise<void>): HTMLElement[] {
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
  if (cr.status === 'approved') out.push(move('Pause', 'pause'));
  if (cr.status === 'paused') out.push(move('Resume', 'resume'));
  if (cr.status !== 'archived') out.push(move('Archive', 'archive'));
  return out;
}

/** The campaign's creatives with their moderation state, and the upload form with a preview. */
export async function creativesSection(c: Campaign): Promise<HTMLElement> {
  const section = h('section', { 'aria-labelledby': 'creatives-h' });
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
        notify(`Creative uploaded; moderation in about ${Math.ceil(created.moderation_eta_seconds / 60)} min`);
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
    const landing = form.querySelector<HTMLInputElement>('input[name="landing_url"]');
    if (landing) landing.parentElement?.append(landingMacroHelp(landing));
    section.replaceChildren(
      h('h2', { id: 'creatives-h' }, 'Creatives'),
      table(
        ['Preview', 'Title', 'Status', 'Weight', 'Rejection reason', ''],
        creatives.map((cr) => [
          preview(cr),
          cr.title ?? '',
          badge(cr.status),
          String(cr.weight),
          cr.rejection_reason ?? '',
          h('span', { class: 'row-actions' }, creativeButtons(cr, render)),
        ]),
        'Creatives of this campaign',
      ),
      h('h3', {}, 'Upload a creative'),
      form,
    );
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
