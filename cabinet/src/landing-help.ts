// The macro help of a landing-URL field: every macro as a button that inserts it, and a live preview of
// the address a click would lead to. The list, the check and the filling are the engine's own
// (schemas/src/landing-macros.ts, zod-free), so the preview shows what the redirect will do.
import {
  LANDING_MACROS,
  SAMPLE_LANDING_VALUES,
  fillLandingUrl,
  landingMacroProblem,
} from '@adnet/schemas/landing-macros';
import { h } from './dom.ts';

const MEANING: Record<(typeof LANDING_MACROS)[number], string> = {
  click_id: "the click's id (for postbacks)",
  zone_id: 'our zone',
  site_id: 'our site',
  campaign_id: 'your campaign',
  creative_id: 'this creative',
  geo: 'country, e.g. us',
  device: 'desktop, mobile or tablet',
  os: 'e.g. android',
  browser: 'e.g. chrome',
  cost: 'USD: the click (CPC) or the eCPM (CPM)',
  bid_type: 'cpm or cpc',
  format: 'the ad as shown, e.g. banner or interstitial',
};

/** What the preview says for `typed`: the filled-in address with sample values, or what is wrong with its macros. */
export function landingPreview(typed: string): { ok: boolean; text: string } {
  const url = typed.trim();
  if (!url) return { ok: true, text: 'Type a landing URL to see it with sample values.' };
  const problem = landingMacroProblem(url);
  return problem ? { ok: false, text: problem } : { ok: true, text: fillLandingUrl(url, SAMPLE_LANDING_VALUES) };
}

/** The help beside `input`: insert buttons and the preview, kept current as the advertiser types. */
export function landingMacroHelp(input: HTMLInputElement): HTMLElement {
  const output = h('output', { id: `${input.id}-preview`, 'aria-live': 'polite', class: 'landing-preview' });
  const update = () => {
    const p = landingPreview(input.value);
    output.textContent = p.text;
    output.classList.toggle('warning', !p.ok);
  };
  const insert = (macro: string) => {
    const at = input.selectionStart ?? input.value.length;
    input.value = `${input.value.slice(0, at)}{${macro}}${input.value.slice(input.selectionEnd ?? at)}`;
    input.focus();
    input.setSelectionRange(at + macro.length + 2, at + macro.length + 2);
    update();
  };
  input.addEventListener('input', update);
  update();
  return h(
    'div',
    { class: 'macro-help' },
    h(
      'details',
      {},
      h('summary', {}, 'Macros: filled in at each click, URL-encoded'),
      h(
        'ul',
        { class: 'macros' },
        LANDING_MACROS.map((m) =>
          h(
            'li',
            {},
            h('button', { type: 'button', onclick: () => insert(m), 'aria-label': `Insert {${m}}` }, `{${m}}`),
            ` ${MEANING[m]}`,
          ),
        ),
      ),
    ),
    h('label', { for: output.id }, 'With sample values: '),
    output,
  );
}
