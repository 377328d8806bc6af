import { z } from 'zod';
import { httpUrl, oneOf, whenValid } from './api.ts';

// Web push that publishers switch on (docs/browser-endpoints.md#web-push): when the push zone's widget
// asks for permission, and the service worker the publisher hosts at the root of the site.

export const PUSH_PROMPT_MOMENTS = ['load', 'delay', 'click'] as const;
export type PushPromptMoment = (typeof PUSH_PROMPT_MOMENTS)[number];

/**
 * When a push zone's widget asks the visitor for permission: as the page loads, `delay_s` seconds after
 * (1-600), or on the visitor's first click on the page (browsers quiet prompts that come without one).
 */
export const pushPromptSchema = z
  .object({
    on: oneOf(PUSH_PROMPT_MOMENTS),
    delay_s: z
      .number({ error: 'must be a number' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(600, 'must be at most 600')
      .optional(),
  })
  .superRefine(
    (p, ctx) => {
      if (p.on === 'delay' && p.delay_s === undefined)
        ctx.addIssue({ code: 'custom', path: ['delay_s'], message: 'is required when on is delay' });
      if (p.on !== 'delay' && p.delay_s !== undefined)
        ctx.addIssue({ code: 'custom', path: ['delay_s'], message: 'is only for on: delay' });
    },
    { when: whenValid('on', 'delay_s') },
  );
export type PushPrompt = z.infer<typeof pushPromptSchema>;

/** A push zone created without a prompt setting: on the first click, the moment browsers least penalise. */
export const DEFAULT_PUSH_PROMPT: PushPrompt = { on: 'click' };

/** Where the publisher hosts our service worker: the site's root, so that its scope is the whole site. */
export const PUSH_WORKER_PATH = '/adnet-sw.js';

/** `POST /push/unsubscribe`: forget a browser's subscription, on one zone or (no `zone`) on every zone. */
export const pushUnsubscribeSchema = z.object({
  endpoint: httpUrl({ httpsOnly: true }),
  zone: z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/, 'must be a zone subid')
    .optional(),
});
export type PushUnsubscribe = z.infer<typeof pushUnsubscribeSchema>;

/** What our push sender sends and the service worker shows (widget/src/service-worker.ts). */
export interface PushMessage {
  title: string;
  body: string;
  icon: string;
  /** The ad's click link: the notification's click opens it. */
  url: string;
}
