// The schedule step's week of hours: a table of 7 days by 24 hours, each cell a toggle button. Painted by
// dragging a mouse or a finger (the first cell's new state is painted over every cell passed), toggled by
// Space or Enter, moved through by the arrow keys (one cell in the tab order, so the grid is one stop).
import { WEEKDAYS } from '@adnet/schemas/schedule';
import { DAY_NAMES, WEEK_HOURS } from './dayparting-grid.ts';
import { h } from './dom.ts';

export interface HourGrid {
  el: HTMLElement;
  cells(): boolean[];
  set(cells: readonly boolean[]): void;
}

const hour = (n: number) => `${String(n).padStart(2, '0')}:00`;

export function hourGrid(opts: { id: string; label: string; describedBy: string; onChange(): void }): HourGrid {
  const state = Array.from({ length: WEEK_HOURS }, () => false);
  let focusAt = 0;
  const buttons: HTMLButtonElement[] = [];
  const show = (i: number) => buttons[i]?.setAttribute('aria-pressed', String(state[i] ?? false));
  const put = (i: number, on: boolean) => {
    if (state[i] === on) return;
    state[i] = on;
    show(i);
    opts.onChange();
  };
  const moveTo = (i: number) => {
    buttons[focusAt]?.setAttribute('tabindex', '-1');
    focusAt = i;
    buttons[i]?.setAttribute('tabindex', '0');
    buttons[i]?.focus();
  };

  let painting: boolean | null = null;
  const cellAt = (x: number, y: number): number => {
    const el = document.elementFromPoint(x, y)?.closest<HTMLElement>('button[data-cell]');
    return el ? Number(el.dataset.cell) : -1;
  };
  const rows = WEEKDAYS.map((day, d) =>
    h(
      'tr',
      {},
      h('th', { scope: 'row' }, h('abbr', { title: DAY_NAMES[day] }, DAY_NAMES[day].slice(0, 3))),
      Array.from({ length: 24 }, (_, hr) => {
        const i = d * 24 + hr;
        const b = h('button', {
          type: 'button',
          class: 'hour',
          'data-cell': i,
          tabindex: i === 0 ? 0 : -1,
          'aria-pressed': 'false',
          'aria-label': `${DAY_NAMES[day]} ${hour(hr)}`,
        });
        buttons.push(b);
        return h('td', {}, b);
      }),
    ),
  );
  const table = h(
    'table',
    { class: 'hour-grid' },
    h('caption', { class: 'offscreen' }, opts.label),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('td', {}),
        Array.from({ length: 24 }, (_, hr) =>
          h(
            'th',
            { scope: 'col', 'aria-label': hour(hr) },
            h('span', { 'aria-hidden': 'true' }, hr % 3 === 0 ? hr : ''),
          ),
        ),
      ),
    ),
    h('tbody', {}, rows),
  );

  table.addEventListener('pointerdown', (ev) => {
    const i = cellAt(ev.clientX, ev.clientY);
    if (i < 0 || ev.button !== 0) return;
    // No text selection or scrolling while painting; the touch's own capture is released so moves reach each cell.
    ev.preventDefault();
    const target = ev.target as Element;
    if (target.hasPointerCapture(ev.pointerId)) target.releasePointerCapture(ev.pointerId);
    painting = !state[i];
    put(i, painting);
    moveTo(i);
  });
  table.addEventListener('pointermove', (ev) => {
    if (painting === null) return;
    const i = cellAt(ev.clientX, ev.clientY);
    if (i >= 0) put(i, painting);
  });
  // On the document: a drag may end outside the grid. Removed once the grid has left the page.
  const stop = () => {
    painting = null;
    if (table.isConnected) return;
    document.removeEventListener('pointerup', stop);
    document.removeEventListener('pointercancel', stop);
  };
  document.addEventListener('pointerup', stop);
  document.addEventListener('pointercancel', stop);
  table.addEventListener('click', (ev) => {
    // A pointer's click was painted on pointerdown; only the keyboard's (detail 0) toggles here.
    const b = (ev.target as Element).closest<HTMLElement>('button[data-cell]');
    if (!b || ev.detail !== 0) return;
    const i = Number(b.dataset.cell);
    put(i, !state[i]);
  });
  table.addEventListener('keydown', (ev) => {
    const step: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -24, ArrowDown: 24 };
    let to = focusAt + (step[ev.key] ?? 0);
    if (ev.key === 'Home') to = focusAt - (focusAt % 24);
    if (ev.key === 'End') to = focusAt - (focusAt % 24) + 23;
    if (to === focusAt || to < 0 || to >= WEEK_HOURS) return;
    // Left and right stay within the day.
    if ((ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') && Math.floor(to / 24) !== Math.floor(focusAt / 24)) return;
    ev.preventDefault();
    moveTo(to);
  });
  table.addEventListener('focusin', (ev) => {
    const b = (ev.target as Element).closest<HTMLElement>('button[data-cell]');
    if (b && Number(b.dataset.cell) !== focusAt) moveTo(Number(b.dataset.cell));
  });

  const all = (on: boolean) => () => {
    for (let i = 0; i < WEEK_HOURS; i++) state[i] = on;
    buttons.forEach((_, i) => show(i));
    opts.onChange();
  };
  const el = h(
    'div',
    {
      id: opts.id,
      class: 'hour-grid-wrap',
      role: 'group',
      'aria-label': opts.label,
      'aria-describedby': opts.describedBy,
      tabindex: -1,
    },
    h(
      'div',
      { class: 'row-actions' },
      h('button', { type: 'button', onclick: all(true) }, 'Every hour'),
      h('button', { type: 'button', onclick: all(false) }, 'Clear (around the clock)'),
    ),
    table,
  );
  return {
    el,
    cells: () => [...state],
    set(cells) {
      cells.forEach((on, i) => {
        state[i] = on;
        show(i);
      });
    },
  };
}
