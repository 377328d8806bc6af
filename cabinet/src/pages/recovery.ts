import { api } from '../api.ts';
import { h } from '../dom.ts';
import { buildForm, text } from '../form.ts';
import { BASE } from '../router.ts';

/** The token an emailed link carries after `#token=`: kept out of the URL's path and query, so no server log or Referer sees it. */
function linkToken(): string {
  return new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
}

const signInLink = () => h('p', {}, h('a', { href: `${BASE}/signin` }, 'Sign in'));

/** Without a token: ask for the reset email. With one (the emailed link): choose the new password. */
export function resetPasswordPage(main: HTMLElement): void {
  const token = linkToken();
  if (!token) {
    const done = h('p', { role: 'status', 'aria-live': 'polite' });
    const { form } = buildForm({
      label: 'Reset password',
      submit: 'Email me a link',
      fields: [{ name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'email' }],
      async onSubmit(d) {
        await api.auth.passwordReset.mutate({ email: text(d, 'email') });
        done.textContent =
          'If this email has an account, a link to reset its password is on its way. It works once, for an hour.';
        done.className = 'ok';
      },
    });
    main.replaceChildren(h('h1', {}, 'Reset your password'), form, done, signInLink());
    form.querySelector('input')?.focus();
    return;
  }
  const { form } = buildForm({
    label: 'Choose a new password',
    submit: 'Set password',
    fields: [
      // The token is no field here: its error (used or expired) shows at the top of the form.
      {
        name: 'password',
        label: 'New password',
        type: 'password',
        required: true,
        autocomplete: 'new-password',
        hint: 'At least 8 characters',
      },
    ],
    async onSubmit(d) {
      await api.auth.passwordResetConfirm.mutate({
        token,
        password: typeof d.get('password') === 'string' ? (d.get('password') as string) : '',
      });
      history.replaceState(null, '', `${BASE}/reset-password`);
      main.replaceChildren(
        h('h1', {}, 'Password set'),
        h('p', { class: 'ok', role: 'status' }, 'Your new password is set, and every session was signed out.'),
        signInLink(),
      );
    },
  });
  main.replaceChildren(h('h1', {}, 'Choose a new password'), form, signInLink());
  form.querySelector('input')?.focus();
}

/** The emailed verification link: confirms the address at once. */
export function verifyEmailPage(main: HTMLElement): void {
  const status = h('p', { role: 'status', 'aria-live': 'polite' }, 'Confirming your email…');
  main.replaceChildren(h('h1', {}, 'Email verification'), status, signInLink());
  const token = linkToken();
  void api.auth.verifyEmail
    .mutate({ token })
    .then(() => {
      history.replaceState(null, '', `${BASE}/verify-email`);
      status.textContent = 'Your email address is confirmed. Thank you.';
      status.className = 'ok';
    })
    .catch(() => {
      status.textContent = 'This link is invalid, used or expired. Sign in and ask for a new one under Account.';
      status.className = 'form-error';
    });
}
