import { DASH, grouped0, grouped1, isNum } from './numbers.js';

// Durations and timestamps as users read them.

/** Seconds: `30.0 s`. */
export function fmtS(v: number | null | undefined): string {
  return isNum(v) ? `${grouped1.format(v)} s` : DASH;
}

/** `30` → `30 s`, `90` → `1 min 30 s` (time per measurement). */
export function fmtDuration(seconds: number): string {
  if (seconds < 120) return `${grouped0.format(seconds)} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds - m * 60);
  return s ? `${m} min ${s} s` : `${m} min`;
}

/** Rough durations for estimates and ETAs: `45 s`, `12 min`, `1.5 h`; `?` when unknown. */
export function fmtEta(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/**
 * A total and its parts in one unit, rounded so the parts add up to the total as printed: `145 s (120 s decode,
 * 25 s cold prefill)`. Seconds up to 10 min (so a short estimate's parts show), then minutes, then tenths of an
 * hour; the first part takes what the rounding leaves, and a part that rounds to nothing reads `under 1 min`.
 */
export function fmtEtaSplit(
  totalS: number,
  parts: readonly [first: readonly [label: string], ...rest: (readonly [label: string, seconds: number])[]],
): string {
  if (!Number.isFinite(totalS) || totalS < 0) return '?';
  const [unit, size, step] = totalS < 600 ? ['s', 1, 1] : totalS < 5400 ? ['min', 60, 1] : ['h', 3600, 0.1];
  const units = (s: number) => Math.round(s / size / step); // in steps of the unit
  const show = (n: number) => `${step < 1 ? (n * step).toFixed(1) : String(n)} ${unit}`;
  const [[firstLabel], ...others] = parts;
  const rest = others.map(([label, s]) => [label, units(s)] as const);
  const first = units(totalS) - rest.reduce((t, [, n]) => t + n, 0);
  const shown = [[firstLabel, first] as const, ...rest].map(([label, n]) =>
    n === 0 && size > 1 ? `under ${show(1)} ${label}` : `${show(n)} ${label}`,
  );
  return `${show(units(totalS))} (${shown.join(', ')})`;
}

/** ISO timestamp → `2026-12-02 11:33 UTC` (labels only; results keep ISO). */
export function fmtDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
