// Numbers exactly as the v0.6.2 seeds print them (docs/report.md "Formats"), for the live view and every report.
export const DASH = '—';

export const grouped0 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const grouped1 = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});
const grouped2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const isNum = (v: number | null | undefined): v is number =>
  typeof v === 'number' && Number.isFinite(v);

// Rounds first so 9,999.96 becomes "10.0K" rather than "10,000.0".
function thousands(v: number): string | undefined {
  if (Math.abs(Math.round(v * 10) / 10) < 10_000) return undefined;
  if (Math.abs(v) >= 999_950_000) return `${grouped1.format(v / 1e9)}G`;
  if (Math.abs(v) >= 999_950) return `${grouped1.format(v / 1e6)}M`;
  return `${grouped1.format(v / 1000)}K`;
}

/** tok/s in tables: `9,835.0`, `108.1`, `10.7K`. */
export function fmtTokS(v: number | null | undefined): string {
  if (!isNum(v)) return DASH;
  return thousands(v) ?? grouped1.format(v);
}

/** tok/s on charts: `9,835`, `10.7K`. */
export function fmtTokSChart(v: number | null | undefined): string {
  if (!isNum(v)) return DASH;
  return thousands(v) ?? grouped0.format(v);
}

/** Latency in ms: `1,514 ms`. */
export function fmtMs(v: number | null | undefined): string {
  return isNum(v) ? `${grouped0.format(v)} ms` : DASH;
}

/** Per-token time: `9.2 ms`. */
export function fmtTokenMs(v: number | null | undefined): string {
  return isNum(v) ? `${grouped1.format(v)} ms` : DASH;
}

/** Grouped integer: `3,244`. */
export function fmtInt(v: number | null | undefined): string {
  return isNum(v) ? grouped0.format(v) : DASH;
}

/** One decimal: `1.0` (average active requests). */
export function fmt1(v: number | null | undefined): string {
  return isNum(v) ? grouped1.format(v) : DASH;
}

export function fmt2(v: number | null | undefined): string {
  return isNum(v) ? grouped2.format(v) : DASH;
}

export function fmtPct(v: number | null | undefined, digits = 0): string {
  return isNum(v) ? `${(v * 100).toFixed(digits)}%` : DASH;
}

/** Ratio of two runs: `1.63×`. */
export function fmtRatio(v: number | null | undefined): string {
  return isNum(v) ? `${v.toFixed(2)}×` : DASH;
}

/** Compact latency for narrow terminal cells: `11,091ms`, `119.2s`. */
export function fmtMsCompact(v: number | null | undefined): string {
  if (!isNum(v)) return DASH;
  return v < 99_999.5 ? `${grouped0.format(v)}ms` : `${grouped1.format(v / 1000)}s`;
}

export function fmtGb(v: number): string {
  return `${grouped0.format(v)} GB`;
}
