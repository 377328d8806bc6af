import type { Role, Session } from './api.ts';

export const BASE = '/cabinet';

export interface PageContext {
  session: Session;
  params: Record<string, string>;
  /** The page's own area; pages render into it and may re-render it. */
  main: HTMLElement;
}

export interface Route {
  path: string;
  title: string;
  /** Roles that may open the page; the nav lists pages with `nav: true`. */
  roles: readonly Role[];
  nav?: boolean;
  render(ctx: PageContext): Promise<void> | void;
}

/** `/campaigns/:id` against `/campaigns/7` gives `{ id: '7' }`. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    const p = a[i] ?? '';
    const v = b[i] ?? '';
    if (p.startsWith(':')) params[p.slice(1)] = decodeURIComponent(v);
    else if (p !== v) return null;
  }
  return params;
}

type Listener = () => void;
let listener: Listener = () => undefined;

export function onNavigate(fn: Listener): void {
  listener = fn;
  window.addEventListener('popstate', fn);
  // Same-origin links inside the cabinet change pages without a reload.
  document.addEventListener('click', (ev) => {
    const a = (ev.target as Element | null)?.closest('a');
    if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || a.target) return;
    const url = new URL(a.href, location.href);
    // In-page anchors (the skip link) keep their native behaviour.
    if (
      url.origin !== location.origin ||
      !url.pathname.startsWith(BASE) ||
      (url.hash && url.pathname === location.pathname)
    )
      return;
    ev.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
}

export function navigate(to: string): void {
  history.pushState(null, '', to.startsWith(BASE) ? to : BASE + to);
  listener();
}

/** The cabinet path without the base: `/cabinet/profile` -> `/profile`. */
export const currentPath = (): string => location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
