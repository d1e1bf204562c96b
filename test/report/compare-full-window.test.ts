import { describe, expect, it } from 'vitest';
import { renderCompare } from '../../src/report/index.js';
import { SEEDS, seedResult } from './seeds.js';

// A new run stores the full window 256 tokens under the max model length, a v0.6.2 report at it.
describe('compare pairs full-window points across versions', () => {
  it('shows one 1024K prefill row with a ratio for a new run against an imported report', () => {
    const imported = seedResult(SEEDS[1].id);
    const full = imported.prefill.find((p) => p.decodeContext === false)!;
    expect(full.contextTokens).toBe(1_048_576);
    const fresh = structuredClone(imported);
    const freshFull = fresh.prefill.find((p) => p.decodeContext === false)!;
    freshFull.contextTokens = 1_048_320;
    freshFull.tokensPerS = full.tokensPerS! * 1.25;
    const md = renderCompare([imported, fresh], 'md');
    const prefillRows = md
      .slice(md.indexOf('## Prefill'))
      .split('\n')
      .filter((l) => /^\| 10(19|24)K /.test(l));
    expect(prefillRows).toHaveLength(2); // 1019K (a decode context) and one 1024K
    const row = prefillRows.find((l) => l.startsWith('| 1024K'))!;
    expect(row).toMatch(/\| 1\.25× \|$/);
    // A decode context 5,120 tokens away is not paired with the full window.
    expect(prefillRows.find((l) => l.startsWith('| 1019K'))).toMatch(/\| 1\.00× \|$/);
  });
});
