import { describe, expect, it } from 'vitest';
import type { CreativeStatus } from '@adnet/schemas/api';
import type { DeliveryReason } from '@adnet/schemas/delivery';
import { launchSteps } from './launch-checklist.ts';

const campaign = (reasons: DeliveryReason[]) => ({
  status: 'active' as const,
  geo_include: [],
  device_types: [],
  delivery: { serving: reasons.length === 0, reasons },
});
const schedule = (reasons: DeliveryReason[]) =>
  launchSteps(campaign(reasons), [], 'about 15 minutes').find((s) => s.label === 'Schedule');
const creativeStep = (statuses: CreativeStatus[]) =>
  launchSteps(
    campaign(['no_approved_creative']),
    statuses.map((status) => ({ status })),
    'about 15 minutes',
  ).find((s) => s.label === 'Creative approved');

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

  it('says what the creative step waits on, from the creatives the API lists', () => {
    expect(creativeStep([])).toEqual({
      label: 'Creative approved',
      done: false,
      detail: 'Upload a creative below; review takes about 15 minutes and you are told by email.',
    });
    // After an upload the step no longer asks for one.
    expect(creativeStep(['pending_moderation'])?.detail).toBe(
      '1 creative in review, about 15 minutes; you are told by email.',
    );
    expect(creativeStep(['pending_moderation', 'rejected', 'pending_moderation'])?.detail).toBe(
      '2 creatives in review, about 15 minutes; you are told by email.',
    );
    expect(creativeStep(['rejected'])?.detail).toBe(
      'Rejected: edit a creative or upload another below; review takes about 15 minutes.',
    );
    expect(creativeStep(['paused', 'rejected'])?.detail).toBe('Every approved creative is paused: resume one below.');
    expect(
      launchSteps(campaign([]), [{ status: 'approved' }], 'about 1 hour').find((s) => s.label === 'Creative approved'),
    ).toEqual({ label: 'Creative approved', done: true, detail: 'At least one creative can serve.' });
  });
});
