import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Builds our Prebid.js adapter (src/adnetBidAdapter.ts) with the pinned prebid.js release (package.json): a bundle of
// Prebid's core and our adapter, the `pbjs` global, for pages that take a ready bundle and for the browser test.
// Prebid (10 and later) ships compiled modules; its `exports` open only the core and its own modules, so the
// adapter's imports of Prebid's internals (`prebid.js/src/...`, `prebid.js/libraries/...`) are resolved here to the
// package's compiled files, as its own modules import them.

const ADAPTER = fileURLToPath(new URL('../src/adnetBidAdapter.ts', import.meta.url));
// The core's entry is dist/src/src/prebid.public.js: its compiled tree is two folders up.
const PREBID_DIST = resolve(dirname(createRequire(import.meta.url).resolve('prebid.js')), '..');

const prebidInternals: Plugin = {
  name: 'prebid-internals',
  setup(b) {
    b.onResolve({ filter: /^prebid\.js\/(src|libraries)\// }, (a) => ({
      path: join(PREBID_DIST, a.path.slice('prebid.js/'.length)),
    }));
  },
};

/** Prebid's core with our adapter, as one script defining `pbjs` (the commands queued on `pbjs.que` run once it loads). */
export async function buildPrebidBundle(opts: { minify?: boolean } = {}): Promise<string> {
  const out = await build({
    stdin: {
      contents: `import pbjs from 'prebid.js';\nimport ${JSON.stringify(ADAPTER)};\npbjs.processQueue();\n`,
      resolveDir: fileURLToPath(new URL('.', import.meta.url)),
      loader: 'js',
    },
    bundle: true,
    minify: opts.minify ?? true,
    format: 'iife',
    target: 'es2020',
    write: false,
    legalComments: 'none',
    plugins: [prebidInternals],
  });
  return out.outputFiles[0]?.text ?? '';
}

// `tsx prebid/build/build.ts [folder]`: writes the bundle as <folder>/adnet-prebid.js (default prebid/dist).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folder = resolve(process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url)));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'adnet-prebid.js');
  writeFileSync(file, await buildPrebidBundle());
  console.log(`wrote ${file}`);
}
