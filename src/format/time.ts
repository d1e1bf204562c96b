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

/** ISO timestamp → `2026-12-02 11:33 UTC` (labels only; results keep ISO). */
export function fmtDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
