import { esc } from './escape.js';

// Small, dependency-free SVG helpers: nice ticks, linear and log scales.
export interface Scale {
  (v: number): number;
  ticks: number[];
}

export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10) * mag;
}

export function linearScale(max: number, r0: number, r1: number, count = 5): Scale {
  const step = niceStep(max || 1, count);
  const top = Math.ceil((max || 1) / step) * step;
  const f = ((v: number) => r0 + (v / top) * (r1 - r0)) as Scale;
  f.ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
  return f;
}

export function logScale(min: number, max: number, r0: number, r1: number): Scale {
  const lo = 10 ** Math.floor(Math.log10(min));
  const hi = 10 ** Math.ceil(Math.log10(max));
  const candidates: number[] = [];
  for (let m = lo; m <= hi; m *= 10) for (const k of [1, 2, 5]) candidates.push(k * m);
  const lo2 = Math.max(...candidates.filter((c) => c <= min));
  const hi2 = Math.min(...candidates.filter((c) => c >= max));
  const f = ((v: number) =>
    r0 + ((Math.log(v) - Math.log(lo2)) / (Math.log(hi2) - Math.log(lo2) || 1)) * (r1 - r0)) as Scale;
  f.ticks = candidates.filter((c) => c >= lo2 && c <= hi2);
  return f;
}

export function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${esc(content)}</text>`;
}

export const n1 = (v: number) => v.toFixed(1);

/** Axis tick label: chart format without a trailing ".0" (15K, not 15.0K). */
export const tickLabel = (format: (v: number) => string) => (v: number) =>
  format(v).replace(/\.0(?=[KMG]$)/, '');

/**
 * A chart drawn at two widths: 880 units for screens and print, 360 for phones (CSS shows one). One drawing
 * squeezed from 880 units into a phone's 340 px would shrink its 12-unit text to under 5 px.
 */
export function twoWidths(draw: (width: number) => string): string {
  const wide = draw(880);
  return wide ? `<div class="chart-w">${wide}</div><div class="chart-n">${draw(360)}</div>` : '';
}
