import './styles.css';
import { api, knownSession, loadSession, problem, saveSession } from './api.ts';
import type { Session } from './api.ts';
import { presetRange } from './date-range.ts';
import { h, usd } from './dom.ts';
import { ROUTES } from './routes.ts';
import { authPage } from './pages/auth.ts';
import { resetPasswordPage, verifyEmailPage } from './pages/recovery.ts';
import { BASE, currentPath, match, navigate, onNavigate } from './router.ts';

const app = document.getElementById('app') as HTMLElement;
let navigated = false;
const HOME: Record<Session['role'], string> = { advertiser: '/overview', publisher: '/overview', admin: '/overview' };

/** The notices' box, kept across pages: a notice given just before a navigation ("Campaign created") stays to be read. */
const noticesBox = (): HTMLElement =>
  document.getElementById('notices') ?? h('div', { id: 'notices', role: 'status', 'aria-live': 'polite' });

function shell(session: Session, active: string): HTMLElement {
  const main = h('main', { id: 'main', tabindex: '-1' });
  const links = ROUTES.filter((r) => r.nav && r.roles.includes(session.role)).map((r) =>
    h('li', {}, h('a', { href: BASE + r.path, 'aria-current': r.path === active ? 'page' : null }, r.title)),
  );
  const signOut = h('button', { type: 'button', class: 'link' }, 'Sign out');
  signOut.addEventListener('click', () => {
    // The token is revoked and its cookie cleared on the server; the page forgets the account whatever the answer.
    void api.auth.logout
      .mutate()
      .catch(() => undefined)
      .finally(() => {
        saveSession(null);
        navigate('/signin');
      });
  });
  const menu = h(
    'button',
    { type: 'button', class: 'menu', 'aria-expanded': 'false', 'aria-controls': 'nav-list' },
    'Menu',
  );
  const list = h('ul', { id: 'nav-list' }, links);
  menu.addEventListener('click', () =>
    menu.setAttribute('aria-expanded', String(menu.getAttribute('aria-expanded') !== 'true')),
  );
  app.replaceChildren(
    h(
      'header',
      {},
      h('a', { class: 'brand', href: `${BASE}/` }, 'adnet'),
      menu,
      h('nav', { 'aria-label': 'Main' }, list),
      h('span', { class: 'who' }, `${session.email} (${session.role})`),
      balanceBadge(session),
      signOut,
    ),
    main,
    noticesBox(),
  );
  return main;
}

/**
 * The money that decides whether anything happens, on every page: an advertiser's balance (an
 * empty one wins no auction) and a publisher's earnings this month. Filled in after the page,
 * so it never delays it.
 */
function balanceBadge(session: Session): HTMLElement | null {
  if (session.role === 'admin') return null;
  // The link carries its label before the figure arrives (or if it never does): a link without
  // text is nameless to a screen reader, and an empty box to everyone else.
  const label = session.role === 'advertiser' ? 'Balance' : 'This month';
  const el = h(
    'a',
    {
      class: 'balance',
      href: `${BASE}/${session.role === 'advertiser' ? 'balance' : 'earnings'}`,
      'aria-live': 'polite',
    },
    label,
  );
  const show = (cents: number) => {
    el.textContent = `${label} ${usd(cents)}`;
    el.classList.toggle('empty', cents <= 0 && session.role === 'advertiser');
  };
  if (session.role === 'advertiser') {
    void api.adv.balance.get
      .query({ limit: 1 })
      .then((b) => show(b.balance_cents))
      .catch(() => undefined);
  } else {
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    void api.pub.stats.get
      .query({ ...presetRange('this_month', Date.now(), tz), group_by: 'day', tz })
      .then((s) => show(s.rows.reduce((a, r) => a + r.earnings_cents, 0)))
      .catch(() => undefined);
  }
  return el;
}

async function render(): Promise<void> {
  const focusMain = navigated;
  navigated = true;
  const path = currentPath();
  // The emailed links' pages work signed in or not.
  const standalone =
    path === '/reset-password' ? resetPasswordPage : path === '/verify-email' ? verifyEmailPage : undefined;
  if (standalone) {
    app.replaceChildren(h('main', { id: 'main', class: 'auth' }), noticesBox());
    return standalone(app.querySelector('main') as HTMLElement);
  }
  const authPath = path === '/signin' || path === '/signup';
  let session: Session | null;
  try {
    // The sign-in form is there at once, as typing may start before the server says who is signed in.
    session = authPath ? (knownSession() ?? null) : await loadSession();
  } catch (err) {
    app.replaceChildren(
      h(
        'main',
        { id: 'main' },
        h('p', { class: 'form-error', role: 'alert' }, `Could not reach adnet: ${problem(err).message}`),
      ),
    );
    return;
  }
  if (authPath || !session) {
    if (session && authPath) return navigate(HOME[session.role]);
    app.replaceChildren(h('main', { id: 'main', class: 'auth' }), noticesBox());
    authPage(app.querySelector('main') as HTMLElement, path === '/signup' ? 'signup' : 'signin', (s) => {
      saveSession(s);
      navigate(HOME[s.role]);
    });
    // Someone already signed in goes home once the answer comes (unless they moved on meanwhile).
    if (authPath && knownSession() === undefined) {
      void loadSession()
        .then((s) => s && currentPath() === path && navigate(HOME[s.role]))
        .catch(() => undefined);
    }
    return;
  }
  if (path === '/') return navigate(HOME[session.role]);
  for (const route of ROUTES) {
    const params = match(route.path, path);
    if (!params) continue;
    const main = shell(session, route.path);
    if (!route.roles.includes(session.role)) {
      main.append(h('h1', {}, 'Not available'), h('p', {}, `This page is for ${route.roles.join(' and ')} accounts.`));
      return;
    }
    document.title = `${route.title} · adnet`;
    // The indicator stays until the page replaces it with its content (every page renders with
    // replaceChildren once its data is in).
    main.append(h('p', { class: 'loading', role: 'status' }, 'Loading…'));
    try {
      await route.render({ session, params, main });
    } catch (err) {
      const e = err as { data?: { httpStatus?: number }; message?: string };
      if (e.data?.httpStatus === 401) {
        saveSession(null);
        return navigate('/signin');
      }
      main.replaceChildren(
        h('h1', {}, route.title),
        h('p', { class: 'form-error', role: 'alert' }, e.message ?? 'Something went wrong'),
      );
    }
    // After an in-app page change the focus goes to the new content (as a page load would put
    // screen readers at the top); on the first load it stays where the browser put it.
    if (focusMain) main.focus();
    return;
  }
  shell(session, '').append(
    h('h1', {}, 'Page not found'),
    h('p', {}, h('a', { href: `${BASE}/` }, 'Back to the cabinet')),
  );
}

onNavigate(() => void render());
void render();
