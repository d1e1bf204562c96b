import { describe, expect, it } from 'vitest';
import {
  contextLabel,
  fmt1,
  fmtMs,
  fmtMsCompact,
  fmtRatio,
  fmtS,
  fmtTokenMs,
  fmtTokS,
  fmtTokSChart,
  parseContextLabel,
} from '../../src/report/format.js';

// Reference values are the seeds' own strings (METHOD.md "Number formatting").
describe('number formatting', () => {
  it('tok/s in tables: one decimal below 10,000, thousands with one decimal from 10,000', () => {
    expect(fmtTokS(9835)).toBe('9,835.0');
    expect(fmtTokS(108.1)).toBe('108.1');
    expect(fmtTokS(1049.8)).toBe('1,049.8');
    expect(fmtTokS(10700)).toBe('10.7K');
    expect(fmtTokS(10650)).toBe('10.7K');
    expect(fmtTokS(9999.96)).toBe('10.0K');
    expect(fmtTokS(9999.94)).toBe('9,999.9');
    expect(fmtTokS(1_250_000)).toBe('1.3M');
    expect(fmtTokS(null)).toBe('—');
    expect(fmtTokS(Number.NaN)).toBe('—');
  });
  it('tok/s on charts: no decimal below 10,000', () => {
    expect(fmtTokSChart(9835)).toBe('9,835');
    expect(fmtTokSChart(4764)).toBe('4,764');
    expect(fmtTokSChart(22800)).toBe('22.8K');
  });
  it('milliseconds, per-token times and seconds', () => {
    expect(fmtMs(1514)).toBe('1,514 ms');
    expect(fmtMs(119248)).toBe('119,248 ms');
    expect(fmtMs(113.6)).toBe('114 ms');
    expect(fmtTokenMs(9.2)).toBe('9.2 ms');
    expect(fmtTokenMs(11)).toBe('11.0 ms');
    expect(fmtS(30)).toBe('30.0 s');
    expect(fmtS(29.94)).toBe('29.9 s');
    expect(fmt1(128)).toBe('128.0');
    expect(fmtMsCompact(11091)).toBe('11,091ms');
    expect(fmtMsCompact(119248)).toBe('119.2s');
    expect(fmtRatio(1.6262)).toBe('1.63×');
  });
  it('context labels round to K and parse back', () => {
    expect(contextLabel(8192)).toBe('8K');
    expect(contextLabel(1043456)).toBe('1019K');
    expect(contextLabel(1048576 - 256)).toBe('1024K');
    expect(contextLabel(512)).toBe('512');
    expect(parseContextLabel('1019K')).toBe(1043456);
    expect(parseContextLabel('512')).toBe(512);
    expect(parseContextLabel('8 K')).toBeUndefined();
  });
});
