import { problem } from './api.ts';
import { h, uid } from './dom.ts';
import { matchesSearch } from './search-text.ts';

export interface FieldSpec {
  name: string;
  label: string;
  /** `picker`: checkboxes with a search box above them, for lists too long to scan (countries). */
  type?:
    | 'text'
    | 'email'
    | 'password'
    | 'number'
    | 'url'
    | 'date'
    | 'datetime-local'
    | 'file'
    | 'select'
    | 'textarea'
    | 'checkboxes'
    | 'picker';
  options?: readonly string[];
  /** How an option reads (its value is what is sent): `de` as "Germany (DE)". */
  optionLabel?: (option: string) => string;
  value?: string | readonly string[];
  hint?: string;
  required?: boolean;
  step?: string;
  accept?: string;
  autocomplete?: string;
  /** A control of its own (the hour grid) in place of `type`'s; it carries `id` and is described by `errId`. */
  render?: (id: string, errId: string) => HTMLElement;
}

export interface FormHandle {
  form: HTMLFormElement;
  /** Shows each message next to its field (keys like `geo_include.0` go to `geo_include`, the nearest named field); the rest at the top. */
  showErrors(fields: Record<string, string>, message?: string): void;
  clearErrors(): void;
}

function control(f: FieldSpec, id: string, errId: string): HTMLElement {
  const common = { id, name: f.name, 'aria-describedby': errId, required: f.required };
  const value = typeof f.value === 'string' ? f.value : undefined;
  if (f.type === 'select') {
    return h(
      'select',
      common,
      (f.options ?? []).map((o) =>
        h('option', { value: o, selected: o === value }, f.optionLabel ? f.optionLabel(o) : o.replace(/_/g, ' ')),
      ),
    );
  }
  if (f.type === 'textarea') return h('textarea', { ...common, rows: 3 }, value ?? '');
  if (f.type === 'checkboxes') {
    const chosen = new Set(Array.isArray(f.value) ? f.value : []);
    return h(
      'fieldset',
      { id, class: 'checks', 'aria-describedby': errId },
      h('legend', { class: 'offscreen' }, f.label),
      (f.options ?? []).map((o) =>
        h('label', {}, h('input', { type: 'checkbox', name: f.name, value: o, checked: chosen.has(o) }), ` ${o}`),
      ),
    );
  }
  if (f.type === 'picker') return picker(f, id, errId);
  return h('input', {
    ...common,
    type: f.type ?? 'text',
    value,
    step: f.step,
    accept: f.accept,
    autocomplete: f.autocomplete,
  });
}

/**
 * A long list of checkboxes under a search box (the field's label names the box): typing hides what
 * does not match, the chosen ones stay listed first and are summed up by name above the list.
 */
function picker(f: FieldSpec, id: string, errId: string): HTMLElement {
  const label = f.optionLabel ?? ((o: string) => o);
  const chosen = new Set(Array.isArray(f.value) ? f.value : []);
  const options = [...(f.options ?? [])].sort((a, b) => Number(chosen.has(b)) - Number(chosen.has(a)));
  const search = h('input', {
    id,
    type: 'search',
    placeholder: 'Search…',
    autocomplete: 'off',
    'aria-describedby': `${id}-chosen ${errId}`,
    'aria-controls': `${id}-list`,
  });
  const summary = h('p', { id: `${id}-chosen`, class: 'picked', 'aria-live': 'polite' });
  const none = h('p', { class: 'muted', hidden: true }, 'Nothing matches');
  const items = options.map((o) =>
    h(
      'label',
      { 'data-search': label(o) },
      h('input', { type: 'checkbox', name: f.name, value: o, checked: chosen.has(o) }),
      ` ${label(o)}`,
    ),
  );
  const list = h('div', { id: `${id}-list`, class: 'picker-list' }, items);
  const sum = () => {
    const names = items.filter((i) => i.querySelector('input')?.checked).map((i) => i.dataset.search ?? '');
    summary.textContent = names.length ? `Chosen (${names.length}): ${names.join(', ')}` : 'None chosen';
  };
  search.addEventListener('input', () => {
    let shown = 0;
    for (const item of items) {
      item.hidden = !matchesSearch(item.dataset.search ?? '', search.value);
      if (!item.hidden) shown++;
    }
    none.hidden = shown > 0;
  });
  // Enter in the search box picks the only match rather than submitting the form.
  search.addEventListener('keydown', (ev) => {
    if (ev.key !== 'Enter') return;
    ev.preventDefault();
    const shown = items.filter((i) => !i.hidden);
    const box = shown.length === 1 ? shown[0]?.querySelector('input') : null;
    if (box && !box.checked) box.click();
  });
  list.addEventListener('change', sum);
  sum();
  return h('div', { class: 'picker' }, search, summary, list, none);
}

/** One labelled row: the control, its hint and the place its error goes. */
export function fieldRow(f: FieldSpec): { row: HTMLElement; err: HTMLElement; id: string } {
  const id = uid(f.name);
  const errId = `${id}-error`;
  const err = h('p', { class: 'field-error', id: errId, hidden: true });
  const row = h(
    'div',
    { class: 'field', 'data-field': f.name },
    h('label', { for: id }, f.label),
    f.render ? f.render(id, errId) : control(f, id, errId),
    f.hint ? h('small', {}, f.hint) : null,
    err,
  );
  return { row, err, id };
}

/**
 * The error display of a form whose rows came from `fieldRow`: `rows` maps each field's name to its
 * error element and control id (a custom control, the hour grid, has no `name` to be found by).
 */
export function formErrors(
  form: HTMLFormElement,
  top: HTMLElement,
  rows: ReadonlyMap<string, { err: HTMLElement; id: string }>,
): Omit<FormHandle, 'form'> {
  const control = (name: string, id: string) =>
    form.querySelector<HTMLElement>(`[name="${name}"]`) ?? form.querySelector<HTMLElement>(`#${CSS.escape(id)}`);
  const handle = {
    clearErrors() {
      top.hidden = true;
      for (const [name, { err, id }] of rows) {
        err.hidden = true;
        err.textContent = '';
        control(name, id)?.removeAttribute('aria-invalid');
      }
    },
    showErrors(fields: Record<string, string>, message?: string) {
      handle.clearErrors();
      const rest: string[] = [];
      let first: HTMLElement | null = null;
      for (const [key, msg] of Object.entries(fields)) {
        // The field itself (`frequency_cap.impressions`), else the nearest one it belongs to (`geo_include.0`, `dayparting.mon.3`).
        const name = fieldOf(key, rows);
        const row = name === undefined ? undefined : rows.get(name);
        if (name === undefined || !row) {
          rest.push(`${key}: ${msg}`);
          continue;
        }
        row.err.textContent = row.err.textContent ? `${row.err.textContent}; ${msg}` : msg;
        row.err.hidden = false;
        const input = control(name, row.id);
        input?.setAttribute('aria-invalid', 'true');
        first ??= input;
      }
      if (message && Object.keys(fields).length === 0) rest.push(message);
      if (rest.length) {
        top.textContent = rest.join('. ');
        top.hidden = false;
      }
      first?.focus();
    },
  };
  return handle;
}

/** The field an API error key belongs to: itself, else its nearest named parent (`dayparting.mon.3` -> `dayparting`). */
export function fieldOf(key: string, fields: { has(name: string): boolean }): string | undefined {
  const segments = key.split('.');
  for (let n = segments.length; n > 0; n--) {
    const name = segments.slice(0, n).join('.');
    if (fields.has(name)) return name;
  }
  return undefined;
}

/** A labelled form whose submit runs `onSubmit`, shows progress, and puts API errors beside their fields. */
export function buildForm(opts: {
  fields: FieldSpec[];
  submit: string;
  label: string;
  onSubmit: (data: FormData, handle: FormHandle) => Promise<void>;
}): FormHandle {
  const top = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const button = h('button', { type: 'submit' }, opts.submit);
  const made = opts.fields.map((f) => [f.name, fieldRow(f)] as const);
  const form = h(
    'form',
    { 'aria-label': opts.label, novalidate: true },
    top,
    made.map(([, r]) => r.row),
    h('div', { class: 'actions' }, button),
  );
  const handle: FormHandle = { form, ...formErrors(form, top, new Map(made)) };

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    handle.clearErrors();
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    const label = button.textContent;
    button.textContent = 'Working…';
    opts
      .onSubmit(new FormData(form), handle)
      .catch((err: unknown) => {
        const p = problem(err);
        handle.showErrors(p.fields, p.message);
      })
      .finally(() => {
        button.disabled = false;
        button.textContent = label;
        form.removeAttribute('aria-busy');
      });
  });
  return handle;
}

/** Text of a form field ('' when absent). */
export const text = (d: FormData, name: string): string => {
  const v = d.get(name);
  return typeof v === 'string' ? v.trim() : '';
};

/** A number field: empty becomes undefined so the API reports "is required" in its own words; anything else goes as typed. */
export function num(d: FormData, name: string): number {
  const v = text(d, name);
  return (v === '' ? undefined : Number(v)) as number;
}

export const optNum = (d: FormData, name: string): number | undefined =>
  text(d, name) === '' ? undefined : Number(text(d, name));

/** A comma- or space-separated list, lowercased. */
export const list = (d: FormData, name: string): string[] =>
  text(d, name)
    .split(/[\s,]+/)
    .map((x) => x.toLowerCase())
    .filter(Boolean);

export const checked = (d: FormData, name: string): string[] =>
  d.getAll(name).filter((v): v is string => typeof v === 'string');
