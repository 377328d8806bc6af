// Type-aware lint: the rules that catch real bugs in async server code
// (floating promises, misused promises in callbacks) need type information.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The engine's floors (docs/architecture.md#the-engines-floors): a folder imports only folders below it.
 * The core (the auction and what it stands on, and the policies beside it) knows neither transport nor
 * storage: uWS lives in http/, Redis in the adapters (store/, budget/, sync/, push/), and the core reaches
 * them only through auction/ports.ts. The floors below the auction do not import it. Tests may reach up.
 * Patterns are regular expressions: relative specifiers ('../store/x.ts') escape glob patterns.
 */
function engineFloors() {
  const dirs = (...names) => names.map((n) => `engine/src/${n}/**/*.ts`);
  const paths = [
    { name: 'uWebSockets.js', message: 'Transport belongs in engine/src/http/.' },
    { name: 'ioredis', message: 'Storage belongs behind a port (engine/src/auction/ports.ts).' },
  ];
  const adapters = {
    regex: String.raw`(^|/)(http|store|budget|sync|push|serving|journal)/`,
    message:
      'The core must not depend on transport, storage adapters or the floors that serve it (docs/architecture.md).',
  };
  const auction = {
    regex: String.raw`(^|/)auction/`,
    message: 'This floor is below the auction: name the fields it needs instead.',
  };
  const rule = (patterns) => ({ 'no-restricted-imports': ['error', { paths, patterns }] });
  // The Redis adapters that still live beside their policies (bench A/B runs load them by these paths).
  const redisBeside = [
    'engine/src/events/event-batcher.ts',
    'engine/src/frequency/redis-frequency-store.ts',
    'engine/src/pacing/pacer.ts',
    'engine/src/rotation/creative-rotation.ts',
  ];
  return [
    {
      files: dirs('auction', 'demand', 'rotation', 'pacing', 'frequency'),
      ignores: ['**/*.test.ts', ...redisBeside],
      rules: rule([adapters]),
    },
    {
      files: dirs('index', 'openrtb', 'events', 'fraud', 'tracking'),
      ignores: ['**/*.test.ts', ...redisBeside],
      rules: rule([adapters, auction]),
    },
  ];
}

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'data/**',
      'bench/results/**',
      '**/dist/**',
      'cabinet/.dist-*/**',
      'eslint.config.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Past four positional arguments a call no longer says which is which (two numbers swapped still typecheck);
      // an options object names them. Functions run on every request keep theirs, marked `-- hot path:` (see
      // docs/architecture.md, "Working on the code").
      '@typescript-eslint/max-params': ['error', { max: 4 }],
    },
  },
  {
    // Configuration is read once, through envSchema (schemas/src/config.ts); only the entry points hand it process.env.
    files: ['admin/src/**/*.ts', 'engine/src/**/*.ts', 'schemas/src/**/*.ts', 'launcher/src/**/*.ts'],
    ignores: ['engine/src/main.ts', 'launcher/src/read-config.ts', 'launcher/src/start.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Add the variable to envSchema and read it from the loaded config.',
        },
      ],
    },
  },
  {
    // Shapes and codecs only: every process shares them, so they hold no client (Redis code lives in runtime/).
    files: ['schemas/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'ioredis',
              message: 'schemas/ holds shapes and codecs, which take and return replies; Redis code lives in runtime/.',
            },
          ],
        },
      ],
    },
  },
  {
    // Only the adapter touches uWS: routes get plain requests and return plain replies.
    files: ['engine/src/**/*.ts'],
    ignores: [
      'engine/src/http/adapt.ts',
      'engine/src/http/admin-proxy.ts',
      'engine/src/http/uws.ts',
      'engine/src/engine.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'uWebSockets.js', message: 'Only engine/src/http/{adapt,admin-proxy,uws}.ts may import uWS.' },
          ],
        },
      ],
    },
  },
  // After the uWS block: a later block's no-restricted-imports replaces an earlier one's for the same files.
  ...engineFloors(),
  {
    // Tests and benchmarks use another package only through its name and the `exports` of its package.json, never
    // by a relative path into its files: its exports are what it promises, so a refactor inside it stays inside it.
    // The shared test harness is a package too (@adnet/test-support, testing/), imported by name.
    files: [
      'tests/e2e/**/*.ts',
      'bench/**/*.ts',
      'admin/test/**/*.ts',
      'engine/test/**/*.ts',
      'launcher/test/**/*.ts',
      'testing/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(schemas|runtime|admin|engine|widget|cabinet|launcher|bench)/',
              message:
                'Import the package by name (@adnet/...) through its package.json `exports`; add an entry there if it lacks one.',
            },
            {
              regex: '^(\\.\\./)+(tests/e2e|testing)/',
              message: 'Import the test harness by name (@adnet/test-support/<file>).',
            },
          ],
        },
      ],
      // The same for `await import(...)`, which no-restricted-imports does not look at.
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'ImportExpression[source.value=/^(\\.\\.\\x2F)+(schemas|runtime|admin|engine|widget|cabinet|launcher|bench|tests\\x2Fe2e|testing)\\x2F/]',
          message: 'Import another package by name (@adnet/...) through its package.json `exports`.',
        },
      ],
    },
  },
  {
    // vitest's asymmetric matchers (expect.any, expect.stringContaining) are typed `any`.
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
);
