import { describe, expect, it } from 'vitest';
import { findAnomalies } from '../../src/report/anomalies.js';
import { renderCsv } from '../../src/report/csv.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';
import { syntheticResult } from './synthetic.js';

describe('client self-check and token attribution in the reports', () => {
  it('a client-bound cell is flagged in every report, with the reason', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid')!;
    c.client = {
      loopDelayP99Ms: 31.4,
      loopDelayMaxMs: 80,
      cpuPctPerThread: 97,
      threads: 1,
      clientBound: true,
      reason: 'event-loop delay p99 31.4 ms > 5 ms; client CPU 97% of a core per thread',
    };
    const flags = findAnomalies(r).filter((a) => a.kind === 'client-bound');
    expect(flags).toHaveLength(1);
    expect(flags[0]!.severity).toBe('warn');
    expect(flags[0]!.text).toMatch(/client was the bottleneck \(event-loop delay p99 31.4 ms/);
    expect(renderText(r)).toMatch(/client was the\s+bottleneck/);
    expect(renderMarkdown(r)).toMatch(/client was the bottleneck/);
    const [head, ...rows] = renderCsv(r)
      .trim()
      .split(/\r?\n/)
      .map((l) => l.split(','));
    const col = head!.indexOf('Client bound');
    expect(rows.filter((x) => x[col] === 'true')).toHaveLength(1);
    expect(rows.find((x) => x[col] === 'true')![head!.indexOf('Client loop delay p99 ms')]).toBe('31.4');
    c.client = { ...c.client, clientBound: false };
    delete c.client.reason;
    expect(findAnomalies(r).some((a) => a.kind === 'client-bound')).toBe(false);
  });

  it('an estimated token split states the bound of the window count', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid' && x.outputTokens)!;
    c.outputTokens = 12_000;
    Object.assign(c, { chunkAttribution: 'estimated', windowTokenErrorBound: 36 });
    const [flag] = findAnomalies(r).filter((a) => a.kind === 'estimated-tokens');
    expect(flag!.text).toMatch(/12,000 tokens may be off by up to 36 \(0.30%\)/);
    Object.assign(c, { chunkAttribution: 'exact', windowTokenErrorBound: 0 });
    expect(findAnomalies(r).some((a) => a.kind === 'estimated-tokens')).toBe(false);
  });

  it('a repeat that failed is said, though the cell kept the others', () => {
    const r = syntheticResult();
    const c = r.decode.find((x) => x.status === 'Valid')!;
    const ok = {
      status: 'Valid' as const,
      totalTokensPerS: 1,
      perRequestTokensPerS: 1,
      ttftMs: 1,
      tbtMs: 1,
      measuredS: 1,
    };
    c.repeats = [ok, { ...ok, status: 'Failed', error: 'TARGET_UNREACHABLE' }, ok];
    const flag = findAnomalies(r).find((a) => a.text.includes('repeats failed'))!;
    expect(flag.text).toMatch(
      /1 of 3 repeats failed \(TARGET_UNREACHABLE\); the figures are those of the others/,
    );
  });
});
