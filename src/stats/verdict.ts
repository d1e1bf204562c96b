import { CONFIDENCE, zQuantile, type Interval } from './interval.js';

// Regression verdicts of `compare` (docs/method.md "Verdicts"): B against A for one figure of one cell or prefill
// point. The ratio B/A is judged on the log scale, where a ratio's noise is the sum of both sides' noise: each
// side's 95% interval gives its standard error, the ratio is called different when its 99% interval excludes 1
// (a matrix holds dozens of cells: 99% keeps false alarms rare across it) and the change is at least 2%.

export const VERDICT_CONFIDENCE = 0.99;
export const MIN_EFFECT = 0.02;

export type Direction = 'higher-is-better' | 'lower-is-better';
export type Verdict = 'faster' | 'slower' | 'no significant difference' | 'no interval';

export interface Measured {
  value: number | null;
  interval?: Interval | null;
}

export interface Comparison {
  ratio: number | null; // B / A
  ratioInterval: Interval | null; // 95%
  verdict: Verdict;
  change: number | null; // how much better (+) or worse (-) B is, as a fraction: +0.07 = 7% faster
  changeHalfWidth: number | null; // 95% half width of that change
}

const Z95 = zQuantile(1 - (1 - CONFIDENCE) / 2);

// Standard error of ln(value) from a 95% interval around it.
export function logStandardError(m: Measured): number | null {
  const i = m.interval;
  if (!i || m.value === null || m.value <= 0 || i.lo <= 0 || i.hi <= 0) return null;
  return (Math.log(i.hi) - Math.log(i.lo)) / (2 * Z95);
}

export function compareFigure(a: Measured, b: Measured, direction: Direction): Comparison {
  if (a.value === null || b.value === null || a.value <= 0 || b.value <= 0)
    return { ratio: null, ratioInterval: null, verdict: 'no interval', change: null, changeHalfWidth: null };
  const ratio = b.value / a.value;
  const seA = logStandardError(a);
  const seB = logStandardError(b);
  const better = (r: number) => (direction === 'higher-is-better' ? r - 1 : 1 / r - 1);
  if (seA === null || seB === null)
    return {
      ratio,
      ratioInterval: null,
      verdict: 'no interval',
      change: better(ratio),
      changeHalfWidth: null,
    };
  const se = Math.hypot(seA, seB);
  const lr = Math.log(ratio);
  const ratioInterval = { lo: Math.exp(lr - Z95 * se), hi: Math.exp(lr + Z95 * se) };
  const zCrit = zQuantile(1 - (1 - VERDICT_CONFIDENCE) / 2);
  const change = better(ratio);
  const significant = Math.abs(lr) > zCrit * se && Math.abs(change) >= MIN_EFFECT;
  const verdict: Verdict = !significant ? 'no significant difference' : change > 0 ? 'faster' : 'slower';
  const bounds = [better(ratioInterval.lo), better(ratioInterval.hi)];
  return { ratio, ratioInterval, verdict, change, changeHalfWidth: Math.abs(bounds[1]! - bounds[0]!) / 2 };
}

const pct = (x: number) => `${Math.round(Math.abs(x) * 100)}%`;

// "B is 7% ± 2% slower than A" (the caller adds where: "at 64K × 16").
export function describeComparison(c: Comparison, a = 'A', b = 'B'): string {
  if (c.change === null) return `${b} and ${a} cannot be compared here`;
  const size = c.changeHalfWidth === null ? pct(c.change) : `${pct(c.change)} ± ${pct(c.changeHalfWidth)}`;
  const way = c.change >= 0 ? 'faster' : 'slower';
  if (c.verdict === 'no interval')
    return `${b} is ${size} ${way} than ${a} (no interval: significance unknown)`;
  if (c.verdict === 'no significant difference')
    return `no significant difference between ${b} and ${a} (${size} ${way}, within noise)`;
  return `${b} is ${size} ${way} than ${a}`;
}

export function geometricMean(ratios: readonly number[]): number | null {
  const ok = ratios.filter((r) => r > 0 && Number.isFinite(r));
  if (ok.length === 0) return null;
  return Math.exp(ok.reduce((s, r) => s + Math.log(r), 0) / ok.length);
}
