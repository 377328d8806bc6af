import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { ORIENTATIONS } from '../choices.ts';
import { h, notify } from '../dom.ts';
import { buildForm, text } from '../form.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type Job = Outputs['adv']['video']['status'];
const POLL_MS = 2000;

function attachForm(c: Campaign, job: Job): HTMLElement {
  return buildForm({
    label: 'Attach video as creative',
    submit: 'Attach as creative',
    fields: [
      { name: 'title', label: 'Title' },
      { name: 'landing_url', label: 'Landing URL', type: 'url', required: true },
      { name: 'cta_text', label: 'Call to action' },
    ],
    async onSubmit(d) {
      const cta = text(d, 'cta_text');
      const title = text(d, 'title');
      await api.adv.video.attach.mutate({
        job_id: job.job_id,
        campaign_id: c.id,
        landing_url: text(d, 'landing_url'),
        ...(title ? { title } : {}),
        ...(cta ? { cta_text: cta } : {}),
      });
      notify('Video attached as a creative; reload the page to see it in the list');
    },
  }).form;
}

/** Avatar video: start a job, watch it until it completes, then attach it to a creative. */
export function videoSection(c: Campaign): HTMLElement {
  const progress = h('div', { 'aria-live': 'polite' });
  const watch = async (jobId: number, started: number) => {
    const job = await api.adv.video.status.query({ job_id: jobId });
    if (!progress.isConnected) return;
    if (job.status === 'processing') {
      const secs = Math.round((Date.now() - started) / 1000);
      progress.replaceChildren(
        h('p', { role: 'status' }, `Video ${jobId} is processing… ${secs} s`),
        h('progress', { 'aria-label': 'Video progress' }),
      );
      setTimeout(() => void watch(jobId, started).catch((e: unknown) => notify(String(e), 'error')), POLL_MS);
      return;
    }
    if (job.status === 'failed')
      return void progress.replaceChildren(
        h('p', { class: 'form-error', role: 'alert' }, `Video ${jobId} failed: ${job.reason ?? 'unknown reason'}`),
      );
    progress.replaceChildren(
      h('p', { role: 'status' }, `Video ${jobId} is ready (${job.duration_sec ?? '?'} s).`),
      h('video', { src: job.video_url ?? '', controls: true, muted: true, class: 'video' }),
      c.format === 'video' || c.format === 'floating_video'
        ? attachForm(c, job)
        : h('p', {}, 'Only video and floating video campaigns take video creatives.'),
    );
  };
  const { form } = buildForm({
    label: 'Generate avatar video',
    submit: 'Start video',
    fields: [
      { name: 'avatar_id', label: 'Avatar', value: 'anna' },
      { name: 'voice_id', label: 'Voice', value: 'anna-en' },
      { name: 'script', label: 'Script', type: 'textarea', required: true },
      { name: 'language', label: 'Language', value: c.languages[0] ?? 'en' },
      { name: 'orientation', label: 'Orientation', type: 'select', options: ORIENTATIONS },
    ],
    async onSubmit(d) {
      const r = await api.adv.video.generate.mutate({
        campaign_id: c.id,
        avatar_id: text(d, 'avatar_id'),
        voice_id: text(d, 'voice_id'),
        script: text(d, 'script'),
        language: text(d, 'language'),
        orientation: text(d, 'orientation') as Job['orientation'],
      });
      notify(`Video ${r.job_id} started`);
      await watch(r.job_id, Date.now());
    },
  });
  return h(
    'section',
    { 'aria-labelledby': 'video-h' },
    h('h2', { id: 'video-h' }, 'Avatar video'),
    h('details', {}, h('summary', {}, 'Generate a video'), form, progress),
  );
}
