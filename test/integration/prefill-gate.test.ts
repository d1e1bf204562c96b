import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/sim/profiles.js';
import { startSimInWorker } from '../../src/sim/worker-sim.js';
import type { Profile } from '../../src/sim/profile-schema.js';
import { runCliInProcess } from '../helpers/cli.js';
import { runDirs, tempDir } from './run-helpers.js';

// At default settings the gate sees a server whose prefill alone is 10% slower (its prefill
// speed x 0.9; --time-scale would slow decode too) and names a prefill point; a rerun of the same server passes.
// The demo engine at a tenth of its prefill speed (4-5K prompt tok/s, a mid-size GPU at long prompts): each point
// takes 0.5-4 s, so a busy machine's scheduling jitter of tens of ms stays small against it.
const withPrefill = (p: Profile, name: string, factor: number): Profile => ({
  ...p,
  name,
  prefillTokensPerS: p.prefillTokensPerS.map(([ctx, tokS]) => [ctx, tokS * factor] as [number, number]),
});
const server = withPrefill(loadProfile('demo'), 'demo-prefill-4k', 0.1);
const slowPrefill = withPrefill(server, 'demo-prefill-4k-slower', 0.9);

// A small matrix at the run's defaults otherwise (prefill repeats among them), against a sim on its own thread.
async function measure(profile: Profile): Promise<string> {
  const sim = await startSimInWorker({ profile, host: '127.0.0.1', port: 0 });
  try {
    const out = tempDir('gate');
    const r = await runCliInProcess([
      'run',
      '--base-url',
      sim.baseUrl,
      '--contexts',
      '2K,8K',
      '--concurrency',
      '1',
      '--max-output',
      '256',
      '--duration',
      '1',
      '--out',
      out,
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    return runDirs(out)[0]!;
  } finally {
    await sim.close();
  }
}

describe('the regression gate sees prefill', () => {
  it(
    'fails on prefill 10% slower and names the point; passes a rerun of the same server',
    { timeout: 300_000 },
    async () => {
      const baseline = await measure(server);
      const slow = await measure(slowPrefill);
      const gate = await runCliInProcess(['compare', baseline, slow, '--fail-on', '5%']);
      expect(gate.code, gate.stderr).toBe(12);
      expect(gate.stderr).toMatch(
        /^error \[REGRESSION\]: \d+ significant slowdowns? beyond 5% against A .*: B prefill \d+K -1\d% ± \d+%/m,
      );
      expect(gate.stderr).not.toMatch(/not judge/);
      // every verdict listed in the terminal with --verbose, the prefill points among them
      const verbose = await runCliInProcess(['compare', baseline, slow, '--verbose', '--width', '120']);
      for (const p of ['prefill 2K', 'prefill 8K', 'prefill 16K', '2K × 1', '8K × 1'])
        expect(verbose.stdout).toContain(`  ${p} `);
      const rerun = await measure(server);
      const same = await runCliInProcess(['compare', baseline, rerun, '--fail-on', '5%', '--verbose']);
      const prefillSlower = same.stdout.split('\n').filter((l) => /^\s+prefill .* slower\s*$/.test(l));
      expect(prefillSlower, same.stdout).toEqual([]);
    },
  );
});
