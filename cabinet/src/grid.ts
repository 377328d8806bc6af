import { h } from './dom.ts';

type Child = Node | string;

export interface Column<R> {
  key: string;
  label: string;
  /** What the column sorts by; numbers sort numerically (nulls last). */
  sort?: (r: R) => number | string | null;
  cell: (r: R) => Child;
  /** Right-aligned, tabular figures. */
  numeric?: boolean;
  /** The totals row's cell, when the column adds up. */
  total?: (rows: R[]) => Child;
}

export interface GridOptions<R> {
  caption: string;
  columns: Column<R>[];
  rows: R[];
  /** A stable key per row: selection survives a re-sort. */
  id?: (r: R) => string;
  /** Adds a checkbox per row; called with the chosen keys whenever they change. */
  onSelect?: (ids: string[]) => void;
  /** Column to sort by first, and its direction. */
  sortBy?: { key: string; dir: 'asc' | 'desc' };
  empty?: Child;
}

function compare(a: number | string | null, b: number | string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

/**
 * A data table people work in: headers sort (announced with aria-sort), an optional totals row,
 * optional row selection for bulk actions. On a phone each row becomes a card (styles.css) with
 * each cell labelled by its column.
 */
export function grid<R>(o: GridOptions<R>): HTMLElement {
  let sort = o.sortBy ?? null;
  const selected = new Set<string>();
  const wrap = h('div', { class: 'table-wrap grid', tabindex: 0, role: 'region', 'aria-label': o.caption });
  const draw = () => {
    const col = sort ? o.columns.find((c) => c.key === sort?.key) : undefined;
    const rows = col?.sort
      ? [...o.rows].sort(
          (a, b) => compare(col.sort?.(a) ?? null, col.sort?.(b) ?? null) * (sort?.dir === 'desc' ? -1 : 1),
        )
      : o.rows;
    const head = o.columns.map((c) => {
      const state = sort?.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none';
      const label = c.sort
        ? h(
            'button',
            {
              type: 'button',
              class: 'sort',
              onclick: () => {
                sort = { key: c.key, dir: sort?.key === c.key && sort.dir === 'desc' ? 'asc' : 'desc' };
                draw();
                wrap.querySelector<HTMLElement>(`th[data-key="${c.key}"] button`)?.focus();
              },
            },
            c.label,
            // The arrow is drawn, not read: aria-sort says the order, and the name stays the label.
            h(
              'span',
              { 'aria-hidden': 'true', class: 'arrow' },
              state === 'ascending' ? ' \u25B2' : state === 'descending' ? ' \u25BC' : '',
            ),
          )
        : c.label;
      if (c.key === 'actions' && !c.label)
        return h('th', { scope: 'col', class: 'actions' }, h('span', { class: 'offscreen' }, 'Actions'));
      return h(
        'th',
        { scope: 'col', class: c.numeric ? 'num' : null, 'data-key': c.key, 'aria-sort': c.sort ? state : null },
        label,
      );
    });
    const pick = (id: string, on: boolean) => {
      if (on) selected.add(id);
      else selected.delete(id);
      o.onSelect?.([...selected]);
    };
    const body = rows.map((r) => {
      const id = o.id?.(r) ?? '';
      const cells = o.columns.map((c) =>
        h(
          'td',
          { class: c.key === 'actions' ? 'actions' : c.numeric ? 'num' : null, 'data-label': c.label },
          c.cell(r),
        ),
      );
      const box = o.onSelect
        ? h(
            'td',
            { class: 'select' },
            h('input', {
              type: 'checkbox',
              'aria-label': `Select ${id}`,
              checked: selected.has(id),
              onchange: (ev: Event) => pick(id, (ev.target as HTMLInputElement).checked),
            }),
          )
        : null;
      return h('tr', { 'data-id': id || null }, box, cells);
    });
    const totals =
      o.columns.some((c) => c.total) && rows.length
        ? h(
            'tfoot',
            {},
            h(
              'tr',
              { class: 'totals' },
              o.onSelect ? h('td', { class: 'no-total' }) : null,
              o.columns.map((c, i) =>
                // Only a figure carries its column's label: on a phone, where each cell reads "Label: value",
                // a column without a total (status, format) would show a label with nothing after it.
                c.total
                  ? h('td', { class: c.numeric ? 'num' : null, 'data-label': c.label }, c.total(o.rows))
                  : h('td', { class: i === 0 ? 'total-label' : 'no-total' }, i === 0 ? 'Total' : ''),
              ),
            ),
          )
        : null;
    wrap.replaceChildren(
      h(
        'table',
        {},
        h('caption', {}, o.caption),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            o.onSelect ? h('th', { scope: 'col', class: 'select' }, h('span', { class: 'offscreen' }, 'Select')) : null,
            head,
          ),
        ),
        h(
          'tbody',
          {},
          body.length
            ? body
            : h('tr', {}, h('td', { colspan: o.columns.length + (o.onSelect ? 1 : 0) }, o.empty ?? 'Nothing yet')),
        ),
        totals,
      ),
    );
  };
  draw();
  return wrap;
}
