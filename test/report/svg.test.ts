import { describe, expect, it } from 'vitest';
import { downsample } from '../../src/report/html/details.js';
import { cssVars, ratioColor, seqColor } from '../../src/report/html/color.js';
import { esc } from '../../src/report/html/escape.js';
import { linearScale, logScale, niceStep, tickLabel } from '../../src/report/html/svg.js';
import { fmtTokSChart } from '../../src/format/index.js';

describe('chart helpers', () => {
  it('nice steps and linear ticks cover the data', () => {
    expect(niceStep(23000, 4)).toBe(10000);
    expect(niceStep(7, 5)).toBe(2);
    const y = linearScale(24624, 300, 30, 4);
    expect(y.ticks).toEqual([0, 10000, 20000, 30000]);
    expect(y(0)).toBe(300);
    expect(y(30000)).toBe(30);
  });
  it('log ticks are 1-2-5 and bracket the data', () => {
    const x = logScale(26.4, 698.4, 0, 100);
    expect(x.ticks).toEqual([20, 50, 100, 200, 500, 1000]);
    expect(x(20)).toBeCloseTo(0);
    expect(x(1000)).toBeCloseTo(100);
  });
  it('tick labels drop a trailing .0', () => {
    expect(tickLabel(fmtTokSChart)(15000)).toBe('15K');
    expect(tickLabel(fmtTokSChart)(12500)).toBe('12.5K');
    expect(tickLabel(fmtTokSChart)(5000)).toBe('5,000');
  });
  it('downsampling keeps bucket peaks and the point count bounded', () => {
    const pts = Array.from({ length: 1000 }, (_, i): [number, number] => [i, i === 537 ? 99 : 1]);
    const out = downsample(pts, 100);
    expect(out).toHaveLength(100);
    expect(Math.max(...out.map((p) => p[1]))).toBe(99);
    expect(downsample(pts.slice(0, 10), 100)).toHaveLength(10);
  });
  it('colours: low values light in the light theme, dark in the dark theme; ink contrasts', () => {
    const low = seqColor(100, 100, 1000);
    const high = seqColor(1000, 100, 1000);
    expect(low.fgLight).toBe('#0d1b2a');
    expect(high.fgLight).toBe('#ffffff');
    expect(low.fgDark).toBe('#ffffff');
    expect(cssVars(low)).toMatch(/^--bg-l:#[0-9a-f]{6};--fg-l:#[0-9a-f]{6};--bg-d:/);
    expect(ratioColor(1).bgLight).toBe('#f4f4f4');
  });
  it('escapes HTML metacharacters', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(esc(null)).toBe('');
  });
});
