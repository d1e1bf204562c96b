import { describe, expect, it } from 'vitest';
import { findAnomalies } from '../../src/report/anomalies.js';
import { syntheticResult } from './synthetic.js';

describe('capacity check anomaly', () => {
  it('says what the server did with a cell measured over a capacity bound', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid')!;
    c.capacityCheck = {
      needTokens: 34816,
      kvCapacityTokens: 32768,
      bound: 'lower-bound',
      why: 'bound',
      held: false,
    };
    const [flag, ...rest] = findAnomalies(r).filter((a) => a.kind === 'capacity');
    expect(rest).toHaveLength(0);
    expect(flag!.severity).toBe('warn');
    expect(flag!.text).toMatch(
      /= 34,816 tokens > KV capacity 32,768 \(lower-bound\), measured because the capacity is only a bound/,
    );
    expect(flag!.text).toMatch(/ran all \d+ at once, so it holds more than 32,768 tokens/);

    c.status = 'Requests queued';
    c.capacityCheck = { ...c.capacityCheck, bound: 'exact', why: 'verify', held: true };
    const held = findAnomalies(r).find((a) => a.kind === 'capacity')!;
    expect(held.severity).toBe('info');
    expect(held.text).toMatch(
      /KV capacity 32,768, measured for --verify-capacity; the rule held: .*\(Requests queued\)/,
    );
  });
});
