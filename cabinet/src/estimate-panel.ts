import { api, problem } from './api.ts';
import type { Inputs } from './api.ts';
import { h } from './dom.ts';
import { estimateLines } from './estimate-text.ts';

type EstimateIn = Inputs['adv']['estimate']['get'];

/** How long the form stays still before it asks: a keystroke each is more than the estimate needs. */
const SETTLE_MS = 400;

/**
 * The traffic estimate beside the bid and budget, asked again whenever the form changes (POST
 * /api/adv/estimate): what the targeting finds, what the bid wins and the bids to consider. A form the API
 * refuses shows why here; the fields' own messages wait for the submit.
 */
export function attachEstimate(form: HTMLFormElement, input: () => EstimateIn): void {
  const panel = h('div', {
    class: 'estimate',
    role: 'status',
    'aria-live': 'polite',
    'aria-label': 'Traffic estimate',
  });
  const anchor = form.querySelector('[data-field="daily_budget_usd"]');
  if (anchor) anchor.after(panel);
  else form.prepend(panel);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let asked = 0;
  const ask = async () => {
    const mine = ++asked;
    const body = input();
    try {
      const e = await api.adv.estimate.get.mutate(body);
      // An older answer arriving after a newer question is not shown.
      if (mine !== asked) return;
      panel.replaceChildren(h('h2', {}, 'Estimate'), ...estimateLines(e, body.bid_type).map((l) => h('p', {}, l)));
    } catch (err) {
      if (mine !== asked) return;
      const p = problem(err);
      const why = Object.entries(p.fields)
        .map(([field, message]) => `${field}: ${message}`)
        .join('; ');
      panel.replaceChildren(h('h2', {}, 'Estimate'), h('p', {}, `No estimate yet: ${why || p.message}`));
    }
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void ask(), SETTLE_MS);
  };
  form.addEventListener('input', later);
  form.addEventListener('change', later);
  later();
}
