import { describe, expect, it } from 'vitest';
import { fitReport, intervalWords } from '../../src/twin/fit-report.js';
import { observe } from '../../src/twin/observe.js';
import { fitTwin } from '../../src/twin/twin.js';
import { demoMeasured, planOf } from './helpers.js';

const measured = demoMeasured();
const twin = fitTwin(observe([{ result: measured, source: 'demo' }]), planOf(measured));
const chars = (line: string) => [...line].length; // × and − are one column each

describe('fit report', () => {
  it('prints a 95% interval as it applies to a log-scale spread: symmetric only where it is', () => {
    // e^(1.96 × 0.03) = 1.0606: ÷ → −5.7%, × → +6.1%, both 6 when rounded
    expect(intervalWords(0.03)).toBe('±6%');
    // e^(1.96 × 0.05) = 1.1030: −9.3% / +10.3%
    expect(intervalWords(0.05)).toBe('−9%/+10%');
    // the reviewer's TTFT: 1.96 × s = 0.68, e^0.68 = 1.974: ÷ 1.974 = −49.3%, × 1.974 = +97.4% (not "± 68%")
    expect(intervalWords(0.68 / 1.96)).toBe('×/÷ 1.97 (−49%/+97%)');
  });

  it('fits 80 columns with grouped numbers, long parameter lists wrapped, a cell name never split', () => {
    const cells = Array.from({ length: 30 }, (_, i) => `${1019 - i}K × ${128 - i}`).join(', ');
    const wide = {
      ...twin,
      params: [
        ...twin.params,
        {
          name: 'API server serial time',
          value: '46 ms + prompt / 1344K tok/s',
          quality: '± 13 ms',
          from: cells,
        },
      ],
      residuals: [
        {
          cell: '1019K × 128',
          measuredStatus: 'Requests queued' as const,
          twinStatus: 'Valid' as const,
          total: [25_579.6, 24_951.0] as [number, number],
          perRequest: [1_768.9, 1_806.5] as [number, number],
          ttft: [119_254, 120_248] as [number, number],
          ttftP90: [null, null] as [null, null],
        },
        {
          cell: '512K × 8',
          measuredStatus: 'Over capacity' as const,
          twinStatus: 'Over capacity' as const,
          total: [null, null] as [null, null],
          perRequest: [null, null] as [null, null],
          ttft: [null, null] as [null, null],
          ttftP90: [null, null] as [null, null],
        },
      ],
      prefillResiduals: [{ point: 'prefill 1019K', measured: 8_594, twin: 8_749.9 }],
    };
    const text = fitReport(wide);
    for (const line of text.split('\n')) expect(chars(line), line).toBeLessThanOrEqual(80);
    const lines = text.split('\n');
    // 25,579.6 -> 25.6K; twin 24,951.0 is 2.46% under -> -2.5%; 1,806.5 / 1,768.9 = +2.1%; 120,248 / 119,254 = +0.8%
    expect(
      lines.some((l) =>
        /^ {2}1019K × 128 +queued\* +25\.6K +-2\.5% +1,768\.9 +\+2\.1% +119,254 +\+0\.8%$/.test(l),
      ),
    ).toBe(true);
    expect(lines).toContain('  * the twin gives another status: 1019K × 128 Valid.');
    expect(lines.some((l) => /^ {2}512K × 8 +over cap\. +— +— +—$/.test(l))).toBe(true);
    // 8,749.9 / 8,594 = +1.8%
    expect(lines.some((l) => /^ {2}prefill 1019K +Valid +8,594\.0 +\+1\.8%$/.test(l))).toBe(true);
    expect(text).not.toMatch(/\d × *\n *\d|\dK *\n *× /); // no cell name broken across lines
    expect(text).toContain('KV capacity: 65,536 tokens');
  });
});
