// What a publisher does to collect push subscribers on a push zone (docs/browser-endpoints.md#web-push):
// pure text, shared by the zone's setup block and its test.

export const WORKER_FILE = 'adnet-sw.js';

/** The steps, for a zone whose worker is at `workerUrl` on a site at `domain`. */
export function pushSetupSteps(domain: string, workerUrl: string): string[] {
  return [
    `Download ${WORKER_FILE} (${workerUrl}).`,
    `Upload it to the root of your site, unchanged, so that https://${domain}/${WORKER_FILE} serves it as JavaScript: a service worker only covers the folder it is served from, and must come from your own site.`,
    "Put the zone's widget snippet on your pages. Browsers allow push only on https pages (and on localhost while you test).",
    'Choose when visitors are asked below; browsers quietly block prompts that come without a click, so "on a click" collects the most.',
  ];
}

/** The prompt moment as the select shows it, and back. */
export const PROMPT_LABELS = {
  click: 'on the first click',
  load: 'as the page loads',
  delay: 'after some seconds',
} as const;
export type PromptMoment = keyof typeof PROMPT_LABELS;
