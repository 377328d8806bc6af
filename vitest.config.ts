import { defineConfig } from 'vitest/config';

// Two projects: pure unit tests beside the code, and integration tests that
// start real servers (Redis on a free port, the admin over HTTP).
export default defineConfig({
  test: {
    // 2 cores: integration files each start servers; keep it to two at once.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['schemas/src/**/*.test.ts', 'admin/src/**/*.test.ts', 'engine/src/**/*.test.ts'],
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
    ],
  },
});
