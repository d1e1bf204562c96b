import { defineConfig } from 'vitest/config';

// Two tiers (test/README.md). `fast` is `npm test`: pure logic, the CLI in-process through main(), the runner
// against the sim in virtual time (test/bench/virtual-run.ts) or on 127.0.0.1; no child processes or threads and
// no real-clock bound tighter than the client controls, so it passes on a 2-core laptop with other work running.
// `integration` holds what needs real processes or threads (the bin, signals, kill -9, a preloaded full disk,
// slot workers), a browser, real metrics scraping, or many full runs (every sim fault, the whole matrix).
const INTEGRATION = [
  'test/integration/bin.test.ts',
  'test/integration/resume.test.ts',
  'test/integration/run-matrix.test.ts',
  'test/integration/hints-run.test.ts', // the printed hints pasted into a shell: npx, real processes
  'test/integration/twin-recipe.test.ts', // plan --for-twin's commands pasted: npx, real runs
  'test/integration/prefill-gate.test.ts', // three real-time runs against sims on their own threads
  'test/integration/demo.test.ts', // a full real-time matrix over sockets (17 s idle); runner logic: test/bench/*
  'test/integration/statuses.test.ts', // real sockets and metrics scraping; the rules: test/bench/statuses-virtual
  'test/bench/drive/workers.test.ts', // worker threads booting tsx; the cell itself: test/bench/decode-cell.test.ts
  'test/bench/drive/workers-cli.test.ts',
  'test/integration/estimate-vs-sim.test.ts',
  'test/twin/plan-for-twin-virtual.test.ts', // the printed short runs through the runner in virtual time, twice
  'test/twin/predict-seed.test.ts', // a twin fitted on a real seed (10 s of CPU) and judged on the cells it did not see
  'test/reliability/crash-resume.test.ts',
  'test/reliability/fault-matrix.test.ts',
  'test/reliability/full-disk.test.ts',
  'test/integration/sweep.test.ts', // servers launched as process groups, killed, resumed
  'test/browser/**/*.test.ts',
  'test/integration/real-stacks.test.ts', // child processes: uvicorn, cpp-httplib, Go, nginx, haproxy
  'test/integration/agents.test.ts', // agent processes (run --agents K --local); the protocol: test/bench/drive/agents
  'test/integration/conformance/*.test.ts', // the conformance matrix against those stacks (harness.ts)
  'test/integration/connect-timeout.test.ts', // a child process: a listener that never accepts
  'test/integration/launch-command-process.test.ts', // a child process read through /proc
  'test/integration/held-stream-nginx.test.ts', // nginx and haproxy processes in front of the sim
  'test/integration/held-stream-proxy.test.ts', // real sockets timed on the real clock (200 ms flushes, 10 ms steps): failed under load
];

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          name: 'fast',
          include: ['test/**/*.test.ts'],
          exclude: INTEGRATION,
          setupFiles: ['test/helpers/invocation-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'integration',
          include: INTEGRATION,
          setupFiles: ['test/helpers/invocation-setup.ts'],
          testTimeout: 240_000,
          hookTimeout: 60_000,
          maxWorkers: 2,
        },
      },
    ],
  },
});
