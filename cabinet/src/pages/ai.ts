import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { h, notify, usd } from '../dom.ts';
import { countriesByName, countryName } from '../countries.ts';
import { buildForm, text } from '../form.ts';
import { prefillCreative } from './creatives.ts';

type Campaign = Outputs['adv']['campaigns']['get'];

/** AI ad copy: the 8 variants and 4 image prompts; a chosen variant fills the creative form. */
export function aiSection(c: Campaign): HTMLElement {
  const results = h('div', { class: 'ai-results', 'aria-live': 'polite' });
  const { form } = buildForm({
    label: 'Generate ad copy',
    submit: 'Generate',
    fields: [
      { name: 'offer', label: 'Offer', type: 'textarea', required: true },
      { name: 'cta', label: 'Call to action', required: true },
      {
        name: 'geo',
        label: 'Country',
        type: 'select',
        options: countriesByName(),
        optionLabel: countryName,
        value: c.geo_include[0] ?? 'us',
      },
      { name: 'lang', label: 'Language (e.g. en)', value: c.languages[0] ?? 'en' },
    ],
    async onSubmit(d) {
      results.replaceChildren(h('p', { role: 'status', class: 'loading' }, 'Generating…'));
      try {
        const r = await api.adv.ai.generate.mutate({
          id: c.id,
          offer: text(d, 'offer'),
          cta: text(d, 'cta'),
          geo: text(d, 'geo').toUpperCase(),
          lang: text(d, 'lang'),
        });
        results.replaceChildren(
          h(
            'p',
            {},
            `${r.provider} · ${r.usage.input_tokens + r.usage.output_tokens} tokens · cost ${usd(r.cost_cents)}`,
          ),
          h('h3', {}, 'Variants'),
          h(
            'ol',
            { class: 'variants' },
            r.variants.map((v) =>
              h(
                'li',
                {},
                h('strong', {}, v.title),
                h('p', {}, v.body),
                h('small', {}, v.hook_type),
                ' ',
                h(
                  'button',
                  {
                    type: 'button',
                    onclick: () => {
                      prefillCreative({ title: v.title, body: v.body });
                      notify('Variant copied into the creative form');
                    },
                  },
                  'Use as creative',
                ),
              ),
            ),
          ),
          h('h3', {}, 'Image prompts'),
          h(
            'ol',
            {},
            r.image_prompts.map((p) => h('li', {}, h('p', {}, p.prompt), h('small', {}, p.style))),
          ),
        );
      } catch (err) {
        results.replaceChildren();
        throw err;
      }
    },
  });
  return h(
    'section',
    { 'aria-labelledby': 'ai-h' },
    h('h2', { id: 'ai-h' }, 'AI ad copy'),
    h('details', {}, h('summary', {}, 'Generate variants'), form, results),
  );
}
