import { buildSync } from 'esbuild';
import { inertJson } from '@adnet/schemas/inert-json';
import type { ZoneConfig } from '@adnet/schemas/widget';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../src/widget.ts', import.meta.url));
const WORKER_ENTRY = fileURLToPath(new URL('../src/service-worker.ts', import.meta.url));

/**
 * The widget bundle as a function body: `run` is called with the zone's
 * configuration and the script element. Built once when an engine starts.
 */
export function buildWidget(): string {
  const out = buildSync({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    globalName: '__adnetWidget',
    target: 'es2018',
    write: false,
    legalComments: 'none',
  });
  return out.outputFiles[0]?.text ?? '';
}

/** One zone's script: everything inside a closure, so nothing but `window.adnet` reaches the page; the settings as inert JSON. */
export function zoneScript(bundle: string, config: ZoneConfig): string {
  return `(function(){${bundle};__adnetWidget.run(${inertJson(config)},document.currentScript)})();\n`;
}

/**
 * Our push service worker (widget/src/service-worker.ts) for an engine whose links start with `baseUrl`:
 * served at `{base_url}/push/sw.js`, hosted by publishers at their site's root. Built once per engine.
 */
export function buildServiceWorker(baseUrl: string): string {
  const out = buildSync({
    entryPoints: [WORKER_ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2018',
    write: false,
    legalComments: 'none',
    define: { __ADNET_BASE__: JSON.stringify(baseUrl) },
  });
  return `/* adnet push worker: host this file at the root of your site as /adnet-sw.js */\n${out.outputFiles[0]?.text ?? ''}`;
}
