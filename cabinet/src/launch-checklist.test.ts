import { describe, expect, it } from 'vitest';
import type { DeliveryReason } from '@adnet/schemas/delivery';
import { launchSteps } from './launch-checklist.ts';

const campaign = (reasons: DeliveryReason[]) => ({
  status: 'active' as const,
  geo_include: [],
  device_types: [],
  delivery: { serving: reasons.length === 0, reasons },
});
const schedule = (reasons: DeliveryReason[]) => launchSteps(campaign(reasons)).find((s) => s.label === 'Schedule');

describe('launch checklist', () => {
  it("marks the schedule step from the campaign's schedule reasons", () => {
    expect(schedule([])).toEqual({ label: 'Schedule', done: true, detail: 'Schedule: running now.' });
    expect(schedule(['not_started'])).toEqual({
      label: 'Schedule',
      done: false,
      detail: 'Schedule: it has not started yet.',
    });
    expect(schedule(['ended'])).toEqual({ label: 'Schedule', done: false, detail: 'Schedule: it has ended.' });
    expect(schedule(['outside_schedule'])).toEqual({
      label: 'Schedule',
      done: false,
      detail: 'Schedule: outside its hours right now.',
    });
    // Other reasons leave the schedule step green.
    expect(schedule(['daily_budget_spent'])?.done).toBe(true);
  });
});
