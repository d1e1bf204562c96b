import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startTestSim } from './run-helpers.js';
import { runCliInProcess } from '../helpers/cli.js';

interface Row {
  phase: string;
  contextTokens: number;
  concurrency: number;
  status: string;
}
const seedOver = (name: string): string[] =>
  (
    JSON.parse(readFileSync(new URL(`../fixtures/seeds/${name}`, import.meta.url), 'utf8')) as { rows: Row[] }
  ).rows
    .filter((r) => r.phase === 'decode' && r.status === 'Over capacity')
    .map((r) => `${r.contextTokens}x${r.concurrency}`)
    .sort();

// Acceptance: the offline plan marks exactly the seeds' Over capacity cells.
describe('plan CLI', () => {
  for (const [capacity, seed] of [
    ['2500000', '001_e957ef8128caa214.json'],
    ['3500000', '000_9816ff1652ee407d.json'],
  ] as const) {
    it(`--kv-capacity ${capacity} marks the Over capacity cells of ${seed}`, async () => {
      const r = await runCliInProcess([
        'plan',
        '--max-model-len',
        '1048576',
        '--kv-capacity',
        capacity,
        '--max-output',
        '4096',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout) as {
        cells: Array<{ contextTokens: number; concurrency: number; status: string }>;
        estimate: { totalS: number };
      };
      const over = plan.cells
        .filter((c) => c.status === 'Over capacity')
        .map((c) => `${c.contextTokens}x${c.concurrency}`)
        .sort();
      expect(over).toEqual(seedOver(seed));
      expect(plan.cells).toHaveLength(64);
      expect(plan.estimate.totalS).toBeGreaterThan(0);
    });
  }

  it('online: asks the server for its max model length and KV capacity', async () => {
    const sim = await startTestSim({ overrides: { kvCapacityTokens: 30_000, maxModelLen: 16_384 } });
    try {
      const r = await runCliInProcess([
        'plan',
        '--base-url',
        sim.baseUrl,
        '--concurrency',
        '1,4',
        '--max-output',
        '1024',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout) as {
        maxModelLen: number;
        kvCapacityTokens: number;
        contexts: number[];
        cells: Array<{ contextTokens: number; concurrency: number; status: string }>;
      };
      expect(plan.maxModelLen).toBe(16_384);
      expect(plan.kvCapacityTokens).toBe(30_000);
      // 8K, then the largest that fits: floor((16384 - 1024 - 1024) / 1024) * 1024 = 14336
      expect(plan.contexts).toEqual([8192, 14336]);
      expect(
        plan.cells
          .filter((c) => c.status === 'Over capacity')
          .map((c) => `${c.contextTokens}x${c.concurrency}`),
      ).toEqual(['8192x4', '14336x4']);
    } finally {
      await sim.close();
    }
  });

  it('prints a table offline and refuses to guess without a max model length', async () => {
    const t = await runCliInProcess([
      'plan',
      '--contexts',
      '8K,16K',
      '--concurrency',
      '1,64',
      '--kv-capacity',
      '1000000',
      '--max-output',
      '4096',
    ]);
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^8K\s+run\s+run$/m);
    expect(t.stdout).toMatch(/^16K\s+run\s+over$/m);
    const bad = await runCliInProcess(['plan']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error \[USAGE\]: cannot choose contexts/);
  });
});
