import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // 2-core machines: integration tests spawn servers and CLIs; keep parallelism modest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
