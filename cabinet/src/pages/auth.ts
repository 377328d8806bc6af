import { api, problem } from '../api.ts';
import type { Session } from '../api.ts';
import { h } from '../dom.ts';
import { buildForm, text } from '../form.ts';
import { BASE } from '../router.ts';

/** Sign in, or sign up (an advertiser or publisher account) and then sign in. */
export function authPage(main: HTMLElement, mode: 'signin' | 'signup', done: (s: Session) => void): void {
  const signup = mode === 'signup';
  const { form } = buildForm({
    label: signup ? 'Sign up' : 'Sign in',
    submit: signup ? 'Create account' : 'Sign in',
    fields: [
      { name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'email' },
      {
        name: 'password',
        label: 'Password',
        type: 'password',
        required: true,
        autocomplete: signup ? 'new-password' : 'current-password',
        hint: signup ? 'At least 8 characters' : undefined,
      },
      ...(signup
        ? [{ name: 'role', label: 'Account type', type: 'select' as const, options: ['advertiser', 'publisher'] }]
        : []),
    ],
    async onSubmit(d) {
      const email = text(d, 'email');
      const password = typeof d.get('password') === 'string' ? (d.get('password') as string) : '';
      if (signup)
        await api.auth.register.mutate({ email, password, role: text(d, 'role') as 'advertiser' | 'publisher' });
      // The token goes into an HttpOnly cookie; the answer carries only what the page shows.
      const t = await api.auth.session.mutate({ email, password }).catch((err: unknown) => {
        // Sign-up answers alike for a taken email, so a new password that does not sign in means the email was taken.
        if (signup && problem(err).code === 'invalid_credentials') {
          throw new Error(
            'Could not sign in with this password: if this email already has an account, sign in with its own password',
          );
        }
        throw err;
      });
      done({ role: t.user.role, email: t.user.email });
    },
  });
  main.replaceChildren(
    h('h1', {}, signup ? 'Create an adnet account' : 'Sign in to adnet'),
    form,
    h(
      'p',
      {},
      signup
        ? h('a', { href: `${BASE}/signin` }, 'I have an account: sign in')
        : h('a', { href: `${BASE}/signup` }, 'New here? Create an account'),
    ),
    ...(signup ? [] : [h('p', {}, h('a', { href: `${BASE}/reset-password` }, 'Forgot your password?'))]),
  );
  form.querySelector('input')?.focus();
}
