import { money } from './format.ts';

type Child = Node | string | number | null | undefined | false;
type Attr = string | number | boolean | null | undefined | ((ev: Event) => void);

/** Attributes that load or navigate to a URL. */
const URL_ATTRS: ReadonlySet<string> = new Set(['href', 'src', 'action', 'formaction', 'poster']);
/**
 * What such an attribute may hold: http(s), a blob of our own, or a path on this origin. A stored
 * `javascript:` or `data:` URL (a creative's landing or video URL from before the API refused them)
 * is dropped rather than written, whatever the page's CSP would do with it.
 */
const SAFE_LINK = /^(?:https?:\/\/|blob:|\/|#|\?)/i;

/**
 * Creates an element: `on*` attributes become listeners, `true` a bare attribute, null/false/undefined
 * nothing, a URL attribute that is not a safe link nothing.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, Attr> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (URL_ATTRS.has(k) && !SAFE_LINK.test(String(v))) continue;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat())
    if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}

/** An SVG element (the chart). */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...children: (Node | string)[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

let ids = 0;
export const uid = (prefix: string): string => `${prefix}-${++ids}`;

/** Money as every page shows it (format.ts): separators, and a minus that cannot be missed. */
export const usd = money;

/** Announces a message to screen readers and shows it briefly. */
export function notify(message: string, kind: 'ok' | 'error' = 'ok'): void {
  const box = document.getElementById('notices');
  if (!box) return;
  const item = h('p', { class: `notice ${kind}` }, message);
  box.append(item);
  setTimeout(() => item.remove(), 6000);
}

/** Copies text, falling back to selecting it when the clipboard is not available (plain http). */
export async function copyText(text: string, label: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h('textarea', { 'aria-hidden': 'true', class: 'offscreen' }, text);
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  notify(`${label} copied`);
}

/** A button that runs an async action, shows it is busy, and reports failures. */
export function actionButton(
  label: string,
  run: () => Promise<void>,
  attrs: Record<string, Attr> = {},
): HTMLButtonElement {
  const btn = h('button', { type: 'button', ...attrs }, label);
  btn.addEventListener('click', () => {
    btn.disabled = true;
    btn.setAttribute('aria-busy', 'true');
    run()
      .catch((err: unknown) => notify(err instanceof Error ? err.message : String(err), 'error'))
      .finally(() => {
        btn.disabled = false;
        btn.removeAttribute('aria-busy');
      });
  });
  return btn;
}

/**
 * The Disable or Enable button of an entity with an `active` status (a partner, a demand partner): `set(false)`
 * disables it, `set(true)` enables it, then `after` redraws.
 */
export function enableToggle(
  entity: { name: string; status: string },
  set: (enable: boolean) => Promise<unknown>,
  after: () => Promise<void>,
): HTMLButtonElement {
  const active = entity.status === 'active';
  const label = active ? 'Disable' : 'Enable';
  return actionButton(
    label,
    async () => {
      await set(!active);
      await after();
    },
    { 'aria-label': `${label} ${entity.name}`, class: active ? 'danger' : 'primary' },
  );
}

export function table(headers: string[], rows: Child[][], caption?: string): HTMLElement {
  // Focusable, so a keyboard can scroll a table wider than the screen; a card per row on a phone.
  return h(
    'div',
    { class: 'table-wrap grid', tabindex: 0, role: 'region', 'aria-label': caption ?? headers.join(', ') },
    h(
      'table',
      {},
      caption ? h('caption', {}, caption) : null,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((t, i) =>
            !t && i === headers.length - 1
              ? h('th', { scope: 'col', class: 'actions' }, h('span', { class: 'offscreen' }, 'Actions'))
              : h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        rows.length
          ? rows.map((r) =>
              h(
                'tr',
                {},
                // A last column without a header holds the row's actions: it stays in view (styles.css).
                r.map((c, i) =>
                  h(
                    'td',
                    { 'data-label': headers[i] ?? '', class: i === r.length - 1 && !headers[i] ? 'actions' : null },
                    c,
                  ),
                ),
              ),
            )
          : h('tr', {}, h('td', { colspan: headers.length }, 'Nothing yet')),
      ),
    ),
  );
}

export const badge = (status: string): HTMLElement =>
  h('span', { class: `badge ${status}` }, status.replace(/_/g, ' '));
