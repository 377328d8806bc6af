import { api } from './api.ts';
import { h } from './dom.ts';
import { freshnessText } from './freshness-text.ts';

/**
 * Shows, in `box`, a notice when the statistics lag the event stream, so a person who sees numbers that have not
 * moved knows why; empties it otherwise. A failed question leaves the page as it is: the figures still show.
 */
export async function showFreshness(box: HTMLElement): Promise<void> {
  const text = await api.stats.freshness.query().then(freshnessText, () => null);
  box.replaceChildren(...(text ? [h('p', { class: 'notice warning' }, text)] : []));
  box.hidden = !text;
}

/** An empty notice box for a statistics view, filled by `showFreshness`. */
export const freshnessBox = (): HTMLElement =>
  h('div', { class: 'warnings stats-freshness', role: 'status', 'aria-live': 'polite', hidden: true });
