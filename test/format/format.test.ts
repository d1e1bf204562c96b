import { describe, expect, it } from 'vitest';
import { emptyCell } from '../../src/results/empty-cell.js';
import { cellLine, cellShort, prefillLine } from '../../src/progress/index.js';
import {
  contextLabel,
  fmtDuration,
  fmtEta,
  fmtEtaSplit,
  fmt1,
  fmtMs,
  fmtMsCompact,
  fmtRatio,
  fmtS,
  fmtTokenMs,
  fmtTokS,
  fmtTokSChart,
  parseContextLabel,
} from '../../src/format/index.js';

// Reference values are the seeds' own strings (docs/report.md "Formats").
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

describe('durations', () => {
  it('estimates and ETAs read in s, min or h', () => {
    expect(fmtEta(44.6)).toBe('45 s');
    expect(fmtEta(89)).toBe('89 s');
    expect(fmtEta(150)).toBe('3 min');
    expect(fmtEta(5400)).toBe('1.5 h');
    expect(fmtEta(-1)).toBe('?');
    expect(fmtEta(Number.NaN)).toBe('?');
    expect(fmtDuration(30)).toBe('30 s');
    expect(fmtDuration(150)).toBe('2 min 30 s');
  });

  // plan printed "2 min (2 min decode, 25 s cold prefill)": the parts must add up to the total as printed.
  it('fmtEtaSplit rounds the total and its parts in one unit, the parts adding up', () => {
    const split = (total: number, prefill: number) =>
      fmtEtaSplit(total, [['decode'], ['cold prefill', prefill]]);
    expect(split(145.2, 25.4)).toBe('145 s (120 s decode, 25 s cold prefill)');
    expect(split(599, 0.4)).toBe('599 s (599 s decode, 0 s cold prefill)');
    // 730 s = 12.2 min; 100 s = 1.7 min; what is left, 10.5 min, shows as 10 so that 10 + 2 = 12
    expect(split(730, 100)).toBe('12 min (10 min decode, 2 min cold prefill)');
    expect(split(700, 25)).toBe('12 min (12 min decode, under 1 min cold prefill)');
    // 9,000 s = 2.5 h; 1,500 s = 0.42 h
    expect(split(9000, 1500)).toBe('2.5 h (2.1 h decode, 0.4 h cold prefill)');
    expect(split(9000, 60)).toBe('2.5 h (2.5 h decode, under 0.1 h cold prefill)');
    expect(split(Number.NaN, 1)).toBe('?');
  });
});

// The live view used to say "0K" and "10,000.0" where the reports say "256" and "10.0K".
describe('the live view reads like the reports', () => {
  it('a 256-token context and 9,999.96 tok/s', () => {
    const cell = {
      ...emptyCell(256, 1, 'Valid' as const),
      totalTokensPerS: 9999.96,
      perRequestTokensPerS: 9999.96,
    };
    expect(cellShort(cell)).toBe('10.0K');
    expect(cellLine(cell)).toMatch(
      /^decode 256 x1: Valid, 10\.0K tok\/s total, 10\.0K tok\/s per request, TTFT —/,
    );
    const point = {
      contextTokens: 256,
      status: 'Valid' as const,
      tokensPerS: 9999.96,
      ttftMs: 25.6,
      repeats: [],
    } as unknown as Parameters<typeof prefillLine>[0];
    expect(prefillLine(point)).toBe('prefill 256: 10.0K prompt tok/s, TTFT 26 ms');
  });
});
