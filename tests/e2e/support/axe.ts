// axe-core for the browser tests' accessibility checks: its source to inject into a page, and the screens the
// cabinet's pages are checked at.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** axe-core's browser build (`page.addScriptTag({ content: AXE })`), read once per test file. */
export const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A laptop and a phone: the cabinet must pass axe-core and fit the screen at both. */
export const DESKTOP_AND_PHONE = [
  { width: 1280, height: 900 },
  { width: 375, height: 740 },
] as const;
