import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runCliInProcess } from '../helpers/cli.js';
import type { SimHandle } from '../../src/sim/server.js';
import { readRun, runDirs, startTestSim, tempDir } from './run-helpers.js';

// `plan`'s estimate against the run's actual duration on the sim.
async function planVsRun(
  flags: string[],
): Promise<{ estimateS: number; actualS: number; fullWindowS: number }> {
  const plan = await runCliInProcess(['plan', ...flags, '--json']);
  expect(plan.code, plan.stderr).toBe(0);
  const estimateS = (JSON.parse(plan.stdout) as { estimate: { totalS: number } }).estimate.totalS;
  const t0 = performance.now();
  const out = tempDir('est-');
  const run = await runCliInProcess(['run', ...flags, '--out', out, '--quiet']);
  const actualS = (performance.now() - t0) / 1000;
  expect(run.code, run.stderr).toBe(0);
  const { result } = readRun(runDirs(out)[0]!);
  const full = result.prefill.find((p) => p.decodeContext === false);
  return { estimateS, actualS, fullWindowS: (full?.ttftMs ?? 0) / 1000 };
}

// Per-token prefill time a + b*L, as attention makes it: 4.2K tok/s at 1K, 1.2K at 16K.
const slow = (l: number): [number, number] => [l, Math.round(1 / (2e-4 + 4e-8 * l))];

// The plan's estimate against the run's measured time on one sim, for contexts 1K, 2K and these levels.
async function planError(sim: SimHandle, concurrency: string, duration: number) {
  try {
    const flags = ['--base-url', sim.baseUrl, '--contexts', '1K,2K', '--concurrency', concurrency];
    const r = await planVsRun([...flags, '--duration', String(duration)]);
    return { ...r, error: Math.abs(r.estimateS - r.actualS) / r.actualS };
  } finally {
    await sim.close();
  }
}

describe('plan estimate against a sim run', () => {
  it('is within 15% of the measured duration', async () => {
    const r = await planError(await startTestSim({ profile: 'demo' }), '1,2,4', 2);
    expect(r.error, `estimate ${r.estimateS} s, actual ${r.actualS} s`).toBeLessThan(0.15);
  });

  it('is within 20% when the full-window prefill is most of the run (llama.cpp flavor, slow prefill)', async () => {
    // 4 slots of the 65,536-token KV: llama.cpp's per-slot context (the max model length it reports) is 16,384,
    // so the full window is 16,128 tokens at about 1,170 prompt tok/s.
    const sim = await startTestSim({
      profile: 'demo',
      overrides: {
        flavor: 'llamacpp',
        maxNumSeqs: 4,
        prefillTokensPerS: [1024, 4096, 8192, 16384].map(slow),
      },
    });
    const r = await planError(sim, '1', 1);
    // The full-window point is most of the run: more than the decode windows, the other points and the rest.
    expect(r.fullWindowS / r.actualS).toBeGreaterThan(0.5);
    expect(r.error, `estimate ${r.estimateS} s, actual ${r.actualS} s`).toBeLessThan(0.2);
  });

  it('the live ETA after each cell points at the real end of the run (within 20% from the second cell on)', async () => {
    const sim = await startTestSim({
      profile: 'demo',
      overrides: { flavor: 'llamacpp', prefillTokensPerS: [1024, 4096, 8192, 16384].map(slow) },
    });
    try {
      const seen: Array<{ atMs: number; etaS: number }> = [];
      const t0 = performance.now();
      const code = await main(
        [
          'run',
          '--base-url',
          sim.baseUrl,
          '--contexts',
          '1K,2K,4K',
          '--concurrency',
          '1,2',
          '--duration',
          '1',
        ].concat(['--out', tempDir('eta-')]),
        {
          stdout: { write: () => true },
          stderr: {
            write: (text: string) => {
              for (const m of text.matchAll(/\[\d+\/\d+, ETA (\d+) s\]/g))
                seen.push({ atMs: performance.now() - t0, etaS: Number(m[1]) });
              return true;
            },
          },
          env: { ...process.env, NO_COLOR: '1' },
        },
      );
      const endMs = performance.now() - t0;
      expect(code).toBe(0);
      expect(seen).toHaveLength(6);
      // The full-window point (16K) comes last and is most of what is left: the ETA must have predicted it.
      for (const s of seen.slice(1, -1)) {
        const predictedEndMs = s.atMs + s.etaS * 1000;
        expect(Math.abs(predictedEndMs - endMs) / endMs, JSON.stringify({ s, endMs })).toBeLessThan(0.2);
      }
    } finally {
      await sim.close();
    }
  });
});
