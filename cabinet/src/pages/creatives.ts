import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { ORIENTATIONS } from '../choices.ts';
import { badge, h, notify, table } from '../dom.ts';
import { buildForm } from '../form.ts';
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
    { name: 'landing_url', label: 'Landing URL', type: 'url', required: true, hint: 'The only macro allowed is {click_id}' },
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
    section.replaceChildren(
      h('h2', { id: 'creatives-h' }, 'Creatives'),
      table(
        ['Preview', 'Title', 'Status', 'Rejection reason'],
        creatives.map((cr) => [preview(cr), cr.title ?? '', badge(cr.status), cr.rejection_reason ?? '']),
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
    if (input) input.value = value;
  }
  form.scrollIntoView({ behavior: 'smooth' });
  form.querySelector<HTMLElement>('[name="landing_url"]')?.focus();
}
