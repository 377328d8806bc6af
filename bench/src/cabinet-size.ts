// `pnpm bench:cabinet`: builds the web cabinet for production and reports what a browser
// downloads (raw and gzip, JS and CSS), in bench/results/cabinet-size.{json,md}.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildCabinet } from '@adnet/cabinet/build';
import { pageHeader } from './results-page.ts';

const started = performance.now();
const { dir } = await buildCabinet({ force: true });
const buildMs = Math.round(performance.now() - started);
const assets = join(dir, 'assets');
const files = readdirSync(assets).map((name) => {
  const data = readFileSync(join(assets, name));
  return {
    name,
    kind: name.endsWith('.css') ? 'css' : name.endsWith('.js') ? 'js' : 'other',
    bytes: data.length,
    gzip: gzipSync(data, { level: 9 }).length,
  };
});
const html = readFileSync(join(dir, 'index.html'));
const sum = (kind: string, key: 'bytes' | 'gzip') =>
  files.filter((f) => f.kind === kind).reduce((a, f) => a + f[key], 0);
const totals = {
  js: sum('js', 'bytes'),
  js_gzip: sum('js', 'gzip'),
  css: sum('css', 'bytes'),
  css_gzip: sum('css', 'gzip'),
  html: html.length,
};
const kb = (n: number) => (n / 1024).toFixed(1);

const out = fileURLToPath(new URL('../results', import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'cabinet-size.json'),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, build_ms: buildMs, totals, files }, null, 2) +
    '\n',
);
const md = [
  '# Web cabinet build size',
  '',
  ...pageHeader('npx -y pnpm@10.34.8 bench:cabinet'),
  '',
  `Production build (Vite, \`cabinet/dist\`) in ${buildMs} ms. Everything the cabinet needs ships in these files (no CDN, no remote fonts).`,
  '',
  '| what | raw KB | gzip KB |',
  '|---|---|---|',
  `| JavaScript | ${kb(totals.js)} | ${kb(totals.js_gzip)} |`,
  `| CSS | ${kb(totals.css)} | ${kb(totals.css_gzip)} |`,
  `| **JS + CSS** | **${kb(totals.js + totals.css)}** | **${kb(totals.js_gzip + totals.css_gzip)}** |`,
  `| index.html | ${kb(totals.html)} | |`,
  '',
].join('\n');
writeFileSync(join(out, 'cabinet-size.md'), md);
process.stdout.write(md);
