import { api, saveSession } from '../api.ts';
import type { Inputs, Outputs } from '../api.ts';
import { actionButton, copyText, h, notify, table } from '../dom.ts';
import { buildForm, checked, text } from '../form.ts';
import type { PageContext } from '../router.ts';
import { navigate } from '../router.ts';

type ApiKey = Outputs['keys']['list']['keys'][number];
type Scope = Inputs['keys']['create']['scopes'][number];
const SCOPES: readonly Scope[] = ['read', 'write', 'stats', 'postback'];
const SCOPE_HELP: Record<Scope, string> = {
  read: 'read: list and get (campaigns, creatives, sites, zones, balance, conversions)',
  write: 'write: create and change them',
  stats: 'stats: statistics',
  postback: 'postback: conversions and postback settings (the secret included)',
};

/** A titled part of the page, labelled by its heading. */
const section = (id: string, title: string, ...children: (Node | string | null)[]): HTMLElement =>
  h(
    'section',
    { 'aria-labelledby': `${id}-h` },
    h('h2', { id: `${id}-h` }, title),
    ...children.filter((c): c is Node | string => c !== null),
  );

/** Account and security, for every role: email, password, API keys, sign out everywhere; the advertiser's notices. */
export async function accountPage(ctx: PageContext): Promise<void> {
  const me = await api.auth.me.query();
  const sections: HTMLElement[] = [h('h1', {}, 'Account and security')];

  const resend = actionButton('Send the link again', async () => {
    await api.auth.resendVerification.mutate();
    notify('Verification email sent');
  });
  sections.push(
    section(
      'email',
      'Email',
      h(
        'p',
        {},
        me.email,
        ' ',
        me.email_verified
          ? h('span', { class: 'badge approved' }, 'verified')
          : h('span', { class: 'badge pending_moderation' }, 'not verified'),
      ),
      me.email_verified ? null : resend,
    ),
  );

  if (ctx.session.role === 'advertiser') {
    const settings = await api.adv.notifications.get.query();
    const { form } = buildForm({
      label: 'Notifications',
      submit: 'Save notifications',
      fields: [
        {
          name: 'low_balance_usd',
          label: 'Email me when my balance falls below (USD)',
          type: 'number',
          step: '0.01',
          value: settings.low_balance_usd === null ? '' : String(settings.low_balance_usd),
          hint: 'Once each time the balance crosses it. Empty: no email.',
        },
      ],
      async onSubmit(d) {
        const v = text(d, 'low_balance_usd');
        await api.adv.notifications.set.mutate({ low_balance_usd: v === '' ? null : Number(v) });
        notify('Notifications saved');
      },
    });
    sections.push(section('notices', 'Notifications', form));
  }

  const password = buildForm({
    label: 'Change password',
    submit: 'Change password',
    fields: [
      {
        name: 'current_password',
        label: 'Current password',
        type: 'password',
        required: true,
        autocomplete: 'current-password',
      },
      {
        name: 'new_password',
        label: 'New password',
        type: 'password',
        required: true,
        autocomplete: 'new-password',
        hint: 'At least 8 characters',
      },
    ],
    async onSubmit(d, handle) {
      const value = (n: string) => (typeof d.get(n) === 'string' ? (d.get(n) as string) : '');
      await api.auth.changePassword.mutate({
        current_password: value('current_password'),
        new_password: value('new_password'),
      });
      handle.form.reset();
      notify('Password changed; your other sessions and API keys were signed out');
    },
  });
  sections.push(
    section(
      'pw',
      'Password',
      h('p', {}, 'Changing it signs out your other sessions and revokes your API keys.'),
      password.form,
    ),
  );

  const keysArea = h('div', {});
  const shown = h('div', { role: 'status', 'aria-live': 'polite' });
  const drawKeys = async () => {
    const { keys } = await api.keys.list.query();
    keysArea.replaceChildren(
      table(
        ['Name', 'Key', 'Scopes', 'Created', 'Last used', ''],
        keys.map((k: ApiKey) => [
          k.name,
          h('code', {}, k.prefix),
          k.scopes.join(', '),
          k.created_at.slice(0, 16).replace('T', ' '),
          k.last_used_at ? k.last_used_at.slice(0, 16).replace('T', ' ') : 'never',
          actionButton(
            'Revoke',
            async () => {
              if (!confirm(`Revoke the key "${k.name}"? Programs using it stop working at once.`)) return;
              await api.keys.revoke.mutate({ id: k.id });
              notify('API key revoked');
              await drawKeys();
            },
            { class: 'danger', 'aria-label': `Revoke ${k.name}` },
          ),
        ]),
        'API keys',
      ),
    );
  };
  const create = buildForm({
    label: 'New API key',
    submit: 'Create key',
    fields: [
      { name: 'name', label: 'Name', required: true, hint: 'What uses it, e.g. "reporting script"' },
      { name: 'scopes', label: 'Scopes', type: 'checkboxes', options: SCOPES, value: ['read'] },
    ],
    async onSubmit(d, handle) {
      const made = await api.keys.create.mutate({ name: text(d, 'name'), scopes: checked(d, 'scopes') as Scope[] });
      handle.form.reset();
      shown.replaceChildren(
        h('p', { class: 'ok' }, `Key "${made.name}" created. Copy it now: it is not shown again.`),
        h(
          'div',
          { class: 'secret-row' },
          h('output', { class: 'secret', id: 'new-api-key' }, made.key),
          actionButton('Copy', () => copyText(made.key, 'API key')),
        ),
      );
      await drawKeys();
    },
  });
  await drawKeys();
  sections.push(
    section(
      'keys',
      'API keys',
      h(
        'p',
        {},
        'Send a key as ',
        h('code', {}, 'Authorization: Bearer adn_…'),
        '. A key cannot manage keys or change the password.',
      ),
      h(
        'ul',
        {},
        SCOPES.map((s) => h('li', {}, SCOPE_HELP[s])),
      ),
      create.form,
      shown,
      keysArea,
    ),
  );

  const everywhere = actionButton(
    'Sign out everywhere',
    async () => {
      if (!confirm('Sign out every session, this one included, and revoke every API key?')) return;
      await api.auth.logoutAll.mutate();
      saveSession(null);
      navigate('/signin');
    },
    { class: 'danger' },
  );
  sections.push(
    section(
      'out',
      'Sessions',
      h(
        'p',
        {},
        'Signs out every browser and program signed in to this account, this one included, and revokes every API key.',
      ),
      everywhere,
    ),
  );
  ctx.main.replaceChildren(...sections);
}
