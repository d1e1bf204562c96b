import { afterEach, describe, expect, it } from 'vitest';
import { EXPECTED_STATUSES, STATUS_SIM_OVERRIDES } from '../helpers/status-matrix.js';
import type { SimHandle } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { fastFlags, readRun, runDirs, startTestSim, tempDir } from './run-helpers.js';

// maxNumSeqs 2 < N = 4 -> Requests queued; 8K x 4: 4 x (8192 + 1024) = 36,864 > 30,000 -> Over capacity.
// Requests live ~2 s (1024 tokens x 2 ms), longer than the 1 s window: queued ones never start inside it.
const overrides = STATUS_SIM_OVERRIDES;
const args = (baseUrl: string, out: string, extra: string[] = []) => [
  'run',
  ...fastFlags(baseUrl, out),
  '--contexts',
  '2K,8K',
  '--prefill-contexts',
  '2K',
  '--concurrency',
  '1,2,4',
  '--max-output',
  '1024',
  ...extra,
];

describe('cell statuses', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => sim?.close());

  for (const metrics of [true, false]) {
    it(
      `Valid, Requests queued and Over capacity ${metrics ? 'with' : 'without'} server metrics`,
      { timeout: 90_000 },
      async () => {
        sim = await startTestSim({ overrides: { ...overrides, metrics } });
        const out = tempDir('status');
        // Without metrics the sim's KV capacity cannot be discovered: the flag gives it.
        const r = await runCliInProcess(args(sim.baseUrl, out, metrics ? [] : ['--kv-capacity', '30000']));
        expect(r.stderr).not.toMatch(/error \[/);
        expect(r.code).toBe(0);
        const { result } = readRun(runDirs(out)[0]!);
        expect(result.target.metricsAvailable).toBe(metrics);
        expect(result.target.kvCapacityTokens).toBe(30_000);
        const status = Object.fromEntries(
          result.decode.map((c) => [`${c.contextTokens}x${c.concurrency}`, c.status]),
        );
        expect(status).toEqual(EXPECTED_STATUSES);
        const queued = result.decode.find((c) => c.status === 'Requests queued')!;
        expect(queued.queueEvidence).toMatch(
          metrics ? /server metrics showed waiting requests/ : /at most 2 of 4 requests streamed at once/,
        );
        expect(queued.avgActive!).toBeCloseTo(2, 0);
        expect(queued.totalTokensPerS).toBeGreaterThan(0);
        if (metrics) expect(queued.maxWaiting).toBe(2);
        else expect(queued.serverSamples).toEqual([]);
        const over = result.decode.find((c) => c.status === 'Over capacity')!;
        expect(over.totalTokensPerS).toBeNull();
        expect(over.queueEvidence).toContain('36864 > KV capacity 30000');
      },
    );
  }
});
