import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import type { RunResult } from '../../src/results/schema.js';
import { describeRun, tempDir } from './lib/bench-run.js';
import {
  CRASH_ARGS,
  compareWithBaseline,
  killResumeChains,
  mulberry32,
  runKillable,
  startPoller,
} from './lib/crash.js';

// SIGKILL at seeded moments, resume each time: the final result equals an uninterrupted run in its cells, with
// none lost or duplicated, and result.json parses at every moment. bench/reliability.ts does 20 kill points.
describe('crash safety: kill -9 and resume', () => {
  let sim: SimHandle;
  let baseline: RunResult;
  let spanMs = 0;
  beforeAll(async () => {
    sim = await startSim({ profile: 'tiny', port: 0, seed: 3 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('an uninterrupted run gives the reference cell set', { timeout: 120_000 }, async () => {
    const out = tempDir('crash-ref');
    const t0 = Date.now();
    const a = await runKillable(
      ['run', '--base-url', sim.baseUrl, '--out', out, '--run-id', 'ref', '--quiet', ...CRASH_ARGS],
      undefined,
    );
    spanMs = Date.now() - t0;
    const r = describeRun({ code: a.exit, signal: a.signal, stdout: '', stderr: a.stderr }, join(out, 'ref'));
    expect(r.code, a.stderr).toBe(0);
    baseline = r.result!;
    expect(baseline.decode).toHaveLength(4);
  });

  it(
    'survives 3 kills at seeded random moments; result.json valid throughout',
    { timeout: 300_000 },
    async () => {
      expect(baseline).toBeDefined();
      const out = tempDir('crash');
      const polls = [1, 2, 3, 4].map((i) => startPoller(join(out, `chain${i}`)));
      const chains = await killResumeChains({
        baseUrl: sim.baseUrl,
        out,
        kills: 3,
        spanMs: spanMs * 0.7,
        rng: mulberry32(20261202),
      });
      const stats = polls.map((p) => p.stop());
      expect(chains.reduce((n, c) => n + c.kills, 0)).toBe(3);
      expect(stats.flatMap((s) => s.invalid)).toEqual([]);
      expect(stats[0]!.reads).toBeGreaterThan(0);
      for (const c of chains) expect(compareWithBaseline(c.final, baseline), c.runId).toEqual([]);
    },
  );
});
