import { defineConfig } from 'vitest/config';

// Tests that compare measured timings with the sim's ground truth at millisecond tolerances run last and
// alone: on a 2-core machine a neighbouring test file would steal the cores they measure.
const TIMING = ['test/integration/run-matrix.test.ts', 'test/bench/workers.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          exclude: TIMING,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'timing',
          include: TIMING,
          testTimeout: 240_000,
          hookTimeout: 60_000,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
