import { defineConfig } from 'vitest/config';

// Two projects: pure unit tests beside the code, and integration tests that
// start real servers (Redis on a free port, the admin over HTTP).
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
          include: ['schemas/src/**/*.test.ts', 'admin/src/**/*.test.ts', 'engine/src/**/*.test.ts', 'cabinet/src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['admin/test/**/*.test.ts', 'engine/test/**/*.test.ts', 'cabinet/test/**/*.test.ts', 'launcher/test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
