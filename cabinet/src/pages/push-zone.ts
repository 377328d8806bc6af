// The push setup block of a push zone: the worker to download, where to host it, and when visitors are asked.
import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { h, notify } from '../dom.ts';
import { buildForm, optNum, text } from '../form.ts';
import { PROMPT_LABELS, WORKER_FILE, pushSetupSteps } from '../push-setup.ts';
import type { PromptMoment } from '../push-setup.ts';

type Zone = Outputs['pub']['zones']['get'];

export function pushSetupSection(zone: Zone, domain: string, after: () => Promise<void>): HTMLElement | null {
  if (zone.format !== 'push' || !zone.push_worker_url) return null;
  const prompt = zone.push_prompt ?? { on: 'click' as const };
  const moments = Object.keys(PROMPT_LABELS) as PromptMoment[];
  const { form } = buildForm({
    label: `When ${zone.name} asks for permission`,
    submit: 'Save prompt',
    // Named as the API names them, so its 400 lands beside the field.
    fields: [
      { name: 'push_prompt.on', label: 'Ask visitors', type: 'select', options: moments, value: prompt.on },
      {
        name: 'push_prompt.delay_s',
        label: 'Seconds after the page loads',
        type: 'number',
        value: String(prompt.delay_s ?? 10),
        hint: 'For "delay": 1-600',
      },
    ],
    async onSubmit(d) {
      const on = text(d, 'push_prompt.on') as PromptMoment;
      await api.pub.zones.update.mutate({
        id: zone.id,
        push_prompt: on === 'delay' ? { on, delay_s: optNum(d, 'push_prompt.delay_s') } : { on },
      });
      notify(`Push prompt of ${zone.name} saved`);
      await after();
    },
  });
  const delayRow = form.querySelector<HTMLElement>('[data-field="push_prompt.delay_s"]');
  const onSelect = form.querySelector<HTMLSelectElement>('select[name="push_prompt.on"]');
  const sync = () => {
    if (delayRow) delayRow.hidden = onSelect?.value !== 'delay';
  };
  onSelect?.addEventListener('change', sync);
  sync();
  return h(
    'details',
    { class: 'controls', 'data-push-setup': zone.name },
    h(
      'summary',
      {},
      `Web push setup: asks ${PROMPT_LABELS[prompt.on]}${prompt.on === 'delay' ? ` (${prompt.delay_s ?? 0} s)` : ''}`,
    ),
    h(
      'ol',
      {},
      pushSetupSteps(domain, zone.push_worker_url).map((s) => h('li', {}, s)),
    ),
    h(
      'p',
      {},
      h('a', { href: `${zone.push_worker_url}?download=1`, download: WORKER_FILE }, `Download ${WORKER_FILE}`),
    ),
    form,
  );
}
