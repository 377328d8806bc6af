import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { POSTBACK_MACROS } from '../choices.ts';
import { actionButton, copyText, h, notify } from '../dom.ts';
import { buildForm, text } from '../form.ts';
import type { PageContext } from '../router.ts';

type Profile = Outputs['adv']['profile']['get'];

/** The advertiser's profile: the postback secret (reveal, copy, rotate) and the postback URL pattern. */
export async function profilePage(ctx: PageContext): Promise<void> {
  let profile: Profile = await api.adv.profile.get.query();
  let revealed = false;
  const secretId = 'postback-secret';
  const secret = h('output', { id: secretId, class: 'secret', 'aria-live': 'polite' });
  const showSecret = () => (secret.textContent = revealed ? profile.postback_secret : '•'.repeat(24));
  const reveal = h('button', { type: 'button', 'aria-controls': secretId, 'aria-pressed': 'false' }, 'Reveal');
  reveal.addEventListener('click', () => {
    revealed = !revealed;
    reveal.textContent = revealed ? 'Hide' : 'Reveal';
    reveal.setAttribute('aria-pressed', String(revealed));
    showSecret();
  });
  const rotate = actionButton('Rotate', async () => {
    if (!confirm('Rotate the postback secret? Trackers using the old one will be refused.')) return;
    profile = await api.adv.profile.rotatePostbackSecret.mutate();
    showSecret();
    notify('Postback secret rotated');
  });
  showSecret();

  const { form } = buildForm({
    label: 'Postback URL',
    submit: 'Save postback URL',
    fields: [
      {
        name: 'postback_url',
        label: 'Postback URL pattern',
        type: 'url',
        value: profile.postback_url ?? '',
        hint: 'Called (GET) when a conversion is recorded or changes status. Empty: no postbacks.',
      },
    ],
    async onSubmit(d) {
      const url = text(d, 'postback_url');
      profile = await api.adv.profile.update.mutate({ postback_url: url === '' ? null : url });
      notify('Postback URL saved');
    },
  });
  const testResult = h('p', { role: 'status', 'aria-live': 'polite' });
  const test = actionButton('Send test postback', async () => {
    testResult.textContent = 'Calling your tracker…';
    try {
      const r = await api.adv.profile.testPostback.mutate();
      testResult.textContent = r.ok
        ? `Your tracker answered HTTP ${r.status ?? ''}: ${r.url}`
        : `Failed (${r.error ?? 'no answer'}): ${r.url}`;
      testResult.className = r.ok ? 'ok' : 'form-error';
    } catch (err) {
      testResult.textContent = '';
      throw err;
    }
  });
  ctx.main.replaceChildren(
    h('h1', {}, 'Profile'),
    h(
      'dl',
      {},
      h('dt', {}, 'Email'),
      h('dd', {}, profile.email),
      h('dt', {}, 'Account id'),
      h('dd', {}, String(profile.id)),
    ),
    h(
      'section',
      { 'aria-labelledby': 'secret-h' },
      h('h2', { id: 'secret-h' }, h('label', { for: secretId }, 'Postback secret')),
      h(
        'p',
        {},
        'Signs the conversion postbacks your tracker sends to ',
        h('code', {}, `${location.origin}/postback/in`),
        '.',
      ),
      h(
        'div',
        { class: 'secret-row' },
        secret,
        reveal,
        actionButton('Copy', () => copyText(profile.postback_secret, 'Postback secret')),
        rotate,
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'pb-h' },
      h('h2', { id: 'pb-h' }, 'Postback URL'),
      form,
      h('p', {}, 'Macros you may use:'),
      h(
        'ul',
        { class: 'macros' },
        POSTBACK_MACROS.map((m) => h('li', {}, h('code', {}, `{${m}}`))),
      ),
      h(
        'p',
        {},
        'Example: ',
        h('code', {}, 'https://tracker.example.com/pb?cid={click_id}&payout={payout_cents}&status={status}'),
      ),
      h('div', { class: 'row-actions' }, test),
      testResult,
    ),
  );
}
