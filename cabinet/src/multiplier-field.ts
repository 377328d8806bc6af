import { h, uid } from './dom.ts';

/**
 * A bid multiplier's number field (the API's range, 0.1 to 10) with the error line it is described by: the
 * placements' and the bid adjustments' controls both write multipliers, and both show the API's 400 beside it.
 */
export function multiplierField(
  value: number,
  prefix: string,
): { id: string; input: HTMLInputElement; error: HTMLElement } {
  const id = uid(prefix);
  const input = h('input', {
    id,
    type: 'number',
    min: '0.1',
    max: '10',
    step: '0.05',
    inputmode: 'decimal',
    value: String(value),
    'aria-describedby': `${id}-error`,
  });
  const error = h('span', { id: `${id}-error`, class: 'field-error', role: 'alert' });
  return { id, input, error };
}
