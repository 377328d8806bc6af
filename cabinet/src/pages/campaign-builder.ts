// The campaign builder (docs/cabinet.md, "Campaign builder"): one form in steps, a new campaign's and an
// existing one's alike. Its values are plain data (campaign-draft.ts), kept in localStorage as a draft while
// the page is left, and sent through the same API the rest of the product uses; the API's 400s are shown
// beside the field they name, on the step that holds it.
import { api, problem } from '../api.ts';
import type { Outputs } from '../api.ts';
import {
  LIST_FIELDS,
  NEW_CAMPAIGN,
  STEPS,
  createInput,
  draftKey,
  estimateInput,
  isPop,
  optsInToInterstitials,
  one,
  parseDraft,
  serializeDraft,
  stepOf,
  stepsFor,
  updateInput,
  valuesFromCampaign,
} from '../campaign-draft.ts';
import type { StepId, Values } from '../campaign-draft.ts';
import { summarize } from '../campaign-summary.ts';
import { cellsFromText, cellsToText } from '../dayparting-grid.ts';
import { h, notify } from '../dom.ts';
import { attachEstimate } from '../estimate-panel.ts';
import { fieldRow, formErrors } from '../form.ts';
import type { FieldSpec } from '../form.ts';
import { audienceFields, basicsFields, bidFields, landingProblem, scheduleFields } from './campaign-steps.ts';
import { hourGrid } from '../hour-grid.ts';
import type { HourGrid } from '../hour-grid.ts';
import { landingMacroHelp } from '../landing-help.ts';
import type { PageContext } from '../router.ts';
import { BASE, navigate } from '../router.ts';

type Campaign = Outputs['adv']['campaigns']['get'];

const TITLE: Record<StepId, string> = Object.fromEntries(STEPS.map((s) => [s.id, s.title])) as Record<StepId, string>;
export async function newCampaignPage(ctx: PageContext): Promise<void> {
  await builder(ctx, null);
}

export async function editCampaignPage(ctx: PageContext): Promise<void> {
  await builder(ctx, await api.adv.campaigns.get.query({ id: Number(ctx.params.id) }));
}

async function builder(ctx: PageContext, c: Campaign | null): Promise<void> {
  const title = h('h1', {}, c ? `Edit ${c.name}` : 'New campaign');
  // The heading at once; the form once the audiences to pick from are in.
  if (!ctx.main.querySelector('form.builder'))
    ctx.main.replaceChildren(title, h('p', { class: 'loading', role: 'status' }, 'Loading…'));
  const { audiences } = await api.adv.audiences.list.query();
  const key = draftKey(ctx.session.email, c?.id ?? 'new');
  const kept = parseDraft(localStorage.getItem(key));
  let values: Values = kept?.values ?? (c ? valuesFromCampaign(c) : { ...NEW_CAMPAIGN });
  let step: StepId = kept?.step ?? 'basics';
  const format = () => (c ? c.format : one(values, 'format'));

  let grid: HourGrid | undefined;
  const rows = new Map<string, { err: HTMLElement; id: string; row: HTMLElement }>();
  const section = (id: StepId, fields: FieldSpec[], ...extra: HTMLElement[]) =>
    h(
      'section',
      { class: 'builder-step', 'data-step': id, 'aria-labelledby': `step-${id}-h`, hidden: true },
      h('h2', { id: `step-${id}-h`, tabindex: -1 }, TITLE[id]),
      fields.map((f) => {
        const r = fieldRow(f);
        rows.set(f.name, r);
        return r.row;
      }),
      ...extra,
    );
  const creativesNote = c
    ? h(
        'p',
        {},
        'Creatives are uploaded, edited and paused on ',
        h('a', { href: `${BASE}/campaigns/${c.id}` }, 'the campaign page'),
        '.',
      )
    : h(
        'p',
        {},
        'After the launch the campaign page opens: its Creatives section takes the images, titles and landing URLs. Each creative is moderated before it serves.',
      );
  const summaryBody = h('div', { class: 'summary' });
  const sections = {
    basics: section('basics', basicsFields(values, c !== null)),
    audience: section('audience', audienceFields(values, audiences, c !== null)),
    bid: section('bid', bidFields(values)),
    schedule: section(
      'schedule',
      scheduleFields(values, (id, errId) => {
        grid = hourGrid({ id, label: 'Hours of the week the campaign serves', describedBy: errId, onChange: changed });
        grid.set(cellsFromText(one(values, 'hours')));
        return grid.el;
      }),
    ),
    creatives: section('creatives', [], creativesNote),
    summary: section('summary', [], summaryBody),
  } satisfies Record<StepId, HTMLElement>;

  const landing = sections.basics.querySelector<HTMLInputElement>('input[name="landing_url"]');
  if (landing) landing.parentElement?.append(landingMacroHelp(landing));

  const top = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const stepList = h('ol', {});
  const back = h('button', { type: 'button' }, 'Back');
  const next = h('button', { type: 'submit' }, 'Next');
  const discard = h('button', { type: 'button', class: 'danger', hidden: !kept }, 'Discard draft');
  const form = h(
    'form',
    { 'aria-label': c ? 'Edit campaign' : 'New campaign', novalidate: true, class: 'builder' },
    h('nav', { 'aria-label': 'Steps', class: 'builder-steps' }, stepList),
    top,
    Object.values(sections),
    h('div', { class: 'actions' }, back, next, discard),
  );
  const errors = formErrors(form, top, rows);
  /** Steps whose fields the API refused at the last launch. */
  let refused = new Set<StepId>();

  const collect = (): Values => {
    const d = new FormData(form);
    const v: Values = { ...values };
    for (const name of Object.keys(NEW_CAMPAIGN)) {
      if ((LIST_FIELDS as readonly string[]).includes(name))
        v[name] = d.getAll(name).filter((x): x is string => typeof x === 'string');
      else {
        const x = d.get(name);
        if (typeof x === 'string') v[name] = x;
      }
    }
    if (grid) v.hours = cellsToText(grid.cells());
    return v;
  };
  const keep = () => {
    localStorage.setItem(key, serializeDraft({ step, values, saved_at: new Date().toISOString() }));
    discard.hidden = false;
  };

  const order = () => stepsFor(format());
  // Built again only when the steps change (a format with or without creatives): a button replaced between a
  // press and its release (a field's change event on blur redraws) would lose the click.
  let drawn = '';
  const drawNav = () => {
    const steps = order();
    if (steps.join() !== drawn) {
      drawn = steps.join();
      stepList.replaceChildren(
        ...steps.map((id, i) =>
          h(
            'li',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'link',
                'data-goto': id,
                onclick: () => {
                  go(id);
                  keep();
                },
              },
              `${i + 1}. ${TITLE[id]}`,
              h('span', { class: 'field-error' }),
            ),
          ),
        ),
      );
    }
    for (const b of stepList.querySelectorAll<HTMLElement>('button[data-goto]')) {
      const id = b.dataset.goto as StepId;
      if (id === step) b.setAttribute('aria-current', 'step');
      else b.removeAttribute('aria-current');
      const mark = b.querySelector('span');
      if (mark) mark.textContent = refused.has(id) ? ' (to fix)' : '';
    }
  };
  const drawSummary = () => {
    const names = new Map(audiences.map((a) => [String(a.id), a.name]));
    summaryBody.replaceChildren(
      ...summarize(values, { audiences: names }, { editing: c !== null }).map((s) =>
        h(
          'div',
          { class: 'summary-section', 'data-summary': s.step },
          h(
            'div',
            { class: 'title-row' },
            h('h3', {}, s.title),
            h(
              'button',
              {
                type: 'button',
                class: 'link',
                'aria-label': `Edit ${s.title.toLowerCase()}`,
                onclick: () => {
                  go(s.step);
                  keep();
                },
              },
              'Edit',
            ),
          ),
          h(
            'ul',
            {},
            s.lines.map((l) => h('li', {}, l)),
          ),
        ),
      ),
    );
  };
  const go = (id: StepId, focus = true) => {
    const steps = order();
    step = steps.includes(id) ? id : 'basics';
    for (const [sid, el] of Object.entries(sections)) el.hidden = sid !== step;
    const at = steps.indexOf(step);
    back.hidden = at === 0;
    const following = steps[at + 1];
    next.textContent = following ? `Next: ${TITLE[following]}` : c ? 'Save changes' : 'Launch campaign';
    if (step === 'summary') drawSummary();
    drawNav();
    if (focus) sections[step].querySelector<HTMLElement>('h2')?.focus();
  };
  /** The basics a format takes: a pop's landing URL; a banner's or a native campaign's interstitial opt-in. */
  function showFormatRows(): void {
    const landingRow = rows.get('landing_url')?.row;
    if (landingRow) landingRow.hidden = !isPop(format());
    const optIn = rows.get('interstitial')?.row;
    if (optIn) optIn.hidden = !optsInToInterstitials(format());
  }
  function changed() {
    values = collect();
    // A pop's landing URL is asked with the basics and it has no creatives step; other formats the reverse.
    showFormatRows();
    drawNav();
    keep();
  }

  back.addEventListener('click', () => {
    const steps = order();
    go(steps[Math.max(0, steps.indexOf(step) - 1)] ?? 'basics');
    keep();
  });
  discard.addEventListener('click', () => {
    localStorage.removeItem(key);
    void builder(ctx, c).then(() => notify('Draft discarded'));
  });
  form.addEventListener('input', changed);
  form.addEventListener('change', changed);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    values = collect();
    const steps = order();
    const following = steps[steps.indexOf(step) + 1];
    if (following) {
      go(following);
      keep();
      return;
    }
    void launch();
  });

  const refuse = (fields: Record<string, string>, message: string) => {
    refused = new Set(Object.keys(fields).map(stepOf));
    const first = order().find((id) => refused.has(id)) ?? 'summary';
    go(first, false);
    errors.showErrors(fields, message);
    if (refused.size > 1)
      notify(
        `Some fields to fix on: ${order()
          .filter((id) => refused.has(id))
          .map((id) => TITLE[id])
          .join(', ')}`,
        'error',
      );
  };

  async function launch(): Promise<void> {
    errors.clearErrors();
    next.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      if (c) {
        await api.adv.campaigns.update.mutate(updateInput(c.id, values));
        localStorage.removeItem(key);
        notify('Campaign saved');
        navigate(`/campaigns/${c.id}`);
        return;
      }
      const pop = isPop(format());
      const url = one(values, 'landing_url');
      const urlProblem = pop ? landingProblem(url) : undefined;
      if (urlProblem) return refuse({ landing_url: urlProblem }, '');
      const created = await api.adv.campaigns.create.mutate(createInput(values));
      localStorage.removeItem(key);
      if (pop) {
        const d = new FormData();
        d.set('campaign_id', String(created.id));
        d.set('title', created.name);
        d.set('landing_url', url);
        d.set('weight', '100');
        // The campaign exists either way: a refused URL is said on its page, where the creatives are.
        await api.adv.creatives.create.mutate(d).catch((err: unknown) => {
          notify(`Campaign created, but its landing URL was refused: ${problem(err).message}`, 'error');
        });
      }
      notify(`Campaign ${created.name} created`);
      navigate(`/campaigns/${created.id}`);
    } catch (err) {
      const p = problem(err);
      refuse(p.fields, p.message);
    } finally {
      next.disabled = false;
      form.removeAttribute('aria-busy');
    }
  }

  // The campaign's own source list narrows its estimate as it narrows its traffic.
  attachEstimate(form, () => ({ ...estimateInput(values), ...(c ? { sources: c.sources } : {}) }));
  values = collect();
  showFormatRows();
  go(step, false);

  const restored = kept
    ? h(
        'p',
        { class: 'draft-note', role: 'status' },
        `Your unfinished draft${kept.saved_at ? ` of ${new Date(kept.saved_at).toLocaleString()}` : ''} is restored; “Discard draft” starts again.`,
      )
    : null;
  ctx.main.replaceChildren(
    ...(c ? [h('p', {}, h('a', { href: `${BASE}/campaigns/${c.id}` }, `← ${c.name}`))] : []),
    title,
    ...(restored ? [restored] : []),
    form,
  );
}
