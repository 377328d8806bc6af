import { defineConfig } from 'vitest/config';

// Four projects: pure unit tests beside the code; each service's integration
// tests (real Redis on a free port, the service over HTTP); product tests in
// tests/e2e that run the services together; and, after those, the launcher's
// tests of the whole product as `pnpm start` runs it.
export default defineConfig({
  test: {
    // 2 cores: integration files each start servers; keep it to two at once.
    maxWorkers: 2,
    // The JSON file gives CI its "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: '.tmp/vitest-results.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'schemas/src/**/*.test.ts',
            'runtime/src/**/*.test.ts',
            'admin/src/**/*.test.ts',
            'engine/src/**/*.test.ts',
            'cabinet/src/**/*.test.ts',
            'tooling/**/*.test.ts',
            'bench/src/**/*.test.ts',
            'prebid/src/**/*.test.ts',
            'widget/src/**/*.test.ts',
          ],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['admin/test/**/*.test.ts', 'engine/test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          // The whole product launched as `pnpm start` does (start, CLI, demo, backup and restore): each takes both
          // cores for a while, so these run after the rest, never beside the tests that time a partner's answer.
          name: 'launcher',
          include: ['launcher/test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
