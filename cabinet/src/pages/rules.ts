// A campaign's automated rules on its page (docs/rules.md): the rules in words with preview, enable and
// delete; a form for a new one; the rule log with undo.
import {
  AMOUNT_PCT_MAX,
  MAX_RULES_PER_CAMPAIGN,
  RULE_ACTIONS,
  RULE_METRICS,
  RULE_OPS,
  RULE_SCOPES,
  RULE_WINDOWS,
} from '@adnet/schemas/rules';
import type { RuleAction, RuleCondition, RuleMetric, RuleOp, RuleScope, RuleWindow } from '@adnet/schemas/rules';
import { api, problem } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, h, notify, table } from '../dom.ts';
import { buildForm, optNum, text } from '../form.ts';
import { metricText, ruleText, valueText } from '../rule-text.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type Preview = Outputs['adv']['rules']['preview'];
const CONDITION_ROWS = [0, 1, 2] as const;

/** The API's field names (`conditions.1.value`) as the form's (`c1_value`). */
const asFormFields = (fields: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.replace(/^conditions\.(\d)\.(\w+)$/, 'c$1_$2'), v]));

function previewBox(p: Preview): HTMLElement {
  const rows = p.actions.map((a) => [
    a.target,
    a.action.replace(/_/g, ' '),
    RULE_METRICS.map((m) => `${metricText(m)} ${valueText(a.values[m])}`).join(' · '),
  ]);
  return h(
    'div',
    { class: 'rule-preview', role: 'status' },
    h(
      'p',
      {},
      `${p.from} to ${p.to}: ${p.actions.length} action(s) now`,
      p.already_acted.length ? `; already acted on in this window: ${p.already_acted.join(', ')}` : '',
    ),
    rows.length ? table(['Target', 'Action', 'Values'], rows, 'What the rule would do now') : null,
  );
}

function newRuleForm(c: Campaign, after: () => Promise<void>): HTMLElement {
  const handle = buildForm({
    label: 'New rule',
    submit: 'Add rule',
    fields: [
      { name: 'name', label: 'Name', required: true },
      { name: 'scope', label: 'For each', type: 'select', options: RULE_SCOPES },
      { name: 'window', label: 'Over', type: 'select', options: RULE_WINDOWS },
      ...CONDITION_ROWS.flatMap((i) => [
        {
          name: `c${i}_metric`,
          label: i === 0 ? 'If' : 'and (optional)',
          type: 'select' as const,
          options: i === 0 ? RULE_METRICS : ['', ...RULE_METRICS],
          optionLabel: (m: string) => (m ? metricText(m as RuleMetric) : '—'),
        },
        { name: `c${i}_op`, label: 'is', type: 'select' as const, options: RULE_OPS, optionLabel: (o: string) => o },
        { name: `c${i}_value`, label: 'than', type: 'number' as const, step: 'any' },
      ]),
      { name: 'action', label: 'Then', type: 'select', options: RULE_ACTIONS },
      {
        name: 'amount_pct',
        label: 'By (%)',
        type: 'number',
        hint: `raise and lower bid only: 1-${AMOUNT_PCT_MAX} % of the target's bid multiplier`,
      },
    ],
    async onSubmit(d, form) {
      const conditions: RuleCondition[] = [];
      for (const i of CONDITION_ROWS) {
        const metric = text(d, `c${i}_metric`);
        if (!metric) continue;
        conditions.push({
          metric: metric as RuleMetric,
          op: text(d, `c${i}_op`) as RuleOp,
          value: optNum(d, `c${i}_value`) ?? Number.NaN,
        });
      }
      const action = text(d, 'action') as RuleAction;
      try {
        await api.adv.rules.create.mutate({
          id: c.id,
          name: text(d, 'name'),
          scope: text(d, 'scope') as RuleScope,
          window: text(d, 'window') as RuleWindow,
          conditions,
          action,
          amount_pct: optNum(d, 'amount_pct'),
          enabled: true,
        });
        notify('Rule added');
        await after();
      } catch (err) {
        const p = problem(err);
        form.showErrors(asFormFields(p.fields), p.message);
      }
    },
  });
  return handle.form;
}

export async function rulesSection(c: Campaign, after: () => Promise<void>): Promise<HTMLElement> {
  const [{ rules }, { entries }] = await Promise.all([
    api.adv.rules.list.query({ id: c.id }),
    api.adv.rules.log.query({ id: c.id }),
  ]);
  const preview = h('div', { 'aria-live': 'polite' });
  const ruleRows = rules.map((r) => [
    r.name,
    ruleText(r),
    r.enabled ? 'on' : 'off',
    h(
      'span',
      { class: 'actions' },
      actionButton(
        'Preview',
        async () =>
          preview.replaceChildren(previewBox(await api.adv.rules.preview.mutate({ id: c.id, rule_id: r.id }))),
        { 'aria-label': `Preview ${r.name}` },
      ),
      actionButton(
        r.enabled ? 'Turn off' : 'Turn on',
        async () => {
          await api.adv.rules.update.mutate({ id: c.id, rule_id: r.id, enabled: !r.enabled });
          await after();
        },
        { 'aria-label': `${r.enabled ? 'Turn off' : 'Turn on'} ${r.name}` },
      ),
      actionButton(
        'Delete',
        async () => {
          await api.adv.rules.delete.mutate({ id: c.id, rule_id: r.id });
          notify(`Rule ${r.name} deleted`);
          await after();
        },
        { 'aria-label': `Delete ${r.name}`, class: 'danger' },
      ),
    ),
  ]);
  const logRows = entries.slice(0, 100).map((e) => [
    new Date(e.at).toLocaleString(),
    e.rule_name,
    `${e.scope} ${e.target}`,
    `${e.action.replace(/_/g, ' ')} (${e.outcome}): ${e.detail}`,
    RULE_METRICS.filter((m) => e.values[m] !== undefined)
      .map((m) => `${metricText(m)} ${valueText(e.values[m])}`)
      .join(' · '),
    e.undone_at
      ? `undone ${new Date(e.undone_at).toLocaleString()}`
      : e.outcome === 'applied' && e.action !== 'notify'
        ? actionButton(
            'Undo',
            async () => {
              await api.adv.rules.undo.mutate({ id: c.id, entry_id: e.id });
              notify('Action undone');
              await after();
            },
            { 'aria-label': `Undo ${e.action.replace(/_/g, ' ')} on ${e.target}` },
          )
        : '',
  ]);
  return h(
    'section',
    { id: 'rules', 'aria-labelledby': 'rules-title' },
    h('h2', { id: 'rules-title' }, 'Automated rules'),
    h(
      'p',
      {},
      `Checked every few minutes against this campaign's statistics; each acts on a target once per window. At most ${MAX_RULES_PER_CAMPAIGN}.`,
    ),
    table(['Name', 'Rule', 'State', ''], ruleRows, 'Rules'),
    preview,
    rules.length < MAX_RULES_PER_CAMPAIGN
      ? h('details', {}, h('summary', {}, 'New rule'), newRuleForm(c, after))
      : null,
    table(['When', 'Rule', 'Target', 'Action', 'Values', ''], logRows, 'Rule log (newest first)'),
  );
}
