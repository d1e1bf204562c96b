import { CONFIDENCE, tQuantile, type Interval } from './interval.js';

// A figure measured in R repeated windows (--repeats): the figure is the mean of the repeats, and its interval a
// Student t interval over them. That interval sees the noise between runs (a slow warm-up, a scheduler mood) that
// one window's own interval cannot; it is never narrower than the widest within-repeat interval, re-centred on
// the mean, since two repeats that happen to agree do not make the figure more certain than one window.
export interface MergedFigure {
  figure: number | null;
  interval: Interval | null;
}

export function mergeRepeatFigure(
  values: readonly (number | null)[],
  within: readonly (Interval | null | undefined)[] = [],
  confidence = CONFIDENCE,
): MergedFigure {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (xs.length === 0) return { figure: null, interval: null };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  let half = 0;
  if (xs.length >= 2) {
    const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
    half = (tQuantile(1 - (1 - confidence) / 2, xs.length - 1) * sd) / Math.sqrt(xs.length);
  }
  const widest = Math.max(0, ...within.map((i) => (i ? (i.hi - i.lo) / 2 : 0)));
  half = Math.max(half, widest);
  if (half === 0) return { figure: mean, interval: null }; // no spread seen is not certainty
  return { figure: mean, interval: { lo: Math.max(0, mean - half), hi: mean + half } };
}
