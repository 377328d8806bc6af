import { describe, expect, it } from 'vitest';
import { PUSH_PROMPT_MOMENTS, PUSH_WORKER_PATH } from '@adnet/schemas/push';
import { PROMPT_LABELS, WORKER_FILE, pushSetupSteps } from './push-setup.ts';

describe('push setup', () => {
  it('tells the publisher to host the worker where the widget registers it', () => {
    expect(`/${WORKER_FILE}`).toBe(PUSH_WORKER_PATH);
    const steps = pushSetupSteps('news.example', 'https://ads.example/push/sw.js');
    expect(steps[0]).toContain('https://ads.example/push/sw.js');
    expect(steps[1]).toContain(`https://news.example${PUSH_WORKER_PATH}`);
  });
  it('labels every prompt moment the API takes', () => {
    expect(Object.keys(PROMPT_LABELS).sort()).toEqual([...PUSH_PROMPT_MOMENTS].sort());
  });
});
