import { describe, expect, it } from 'vitest';
import { findAnomalies } from '../../src/report/anomalies.js';
import { syntheticResult } from './synthetic.js';

describe('stall anomaly', () => {
  it('flags a cell whose streams stalled, with the longest gap and the stalled share of the window', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid' && x.measuredS)!;
    Object.assign(c, { stalls: 3, maxChunkGapMs: 1500, stalledMs: 4500, measuredS: 30 });
    const stall = findAnomalies(r).filter((a) => a.kind === 'stall');
    expect(stall).toHaveLength(1);
    expect(stall[0]!.text).toMatch(/3 stalled streams .*the longest 1,500 ms.*4,500 ms, 15% of the window/);
    c.stalls = 0;
    expect(findAnomalies(r).some((a) => a.kind === 'stall')).toBe(false);
  });
});
