import type { ServerSample } from '../results/schema.js';

export interface SampleSummary {
  maxRunning: number | null;
  maxWaiting: number | null;
  specAcceptanceLength: number | null; // 1 + Δaccepted/Δdrafts, or the engine's own gauge (SGLang)
  cacheHitRatio: number | null; // Δhits/Δqueries over the window
  avgPowerW: number | null;
}

export function summarizeSamples(samples: readonly ServerSample[]): SampleSummary {
  return {
    maxRunning: maxOf(samples, (s) => s.running),
    maxWaiting: maxOf(samples, (s) => s.waiting),
    specAcceptanceLength: specAcceptanceLength(samples),
    cacheHitRatio: prefixCacheHitRatio(samples),
    avgPowerW: averagePowerW(samples),
  };
}

function maxOf(
  samples: readonly ServerSample[],
  pick: (s: ServerSample) => number | null | undefined,
): number | null {
  let best: number | null = null;
  for (const s of samples) {
    const v = pick(s);
    if (typeof v === 'number' && Number.isFinite(v) && (best === null || v > best)) best = v;
  }
  return best;
}

// First and last readings of a counter; a reset (restart) in between makes the delta meaningless.
function counterDelta(
  samples: readonly ServerSample[],
  pick: (s: ServerSample) => number | null | undefined,
): number | null {
  const vals = samples.map(pick).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (vals.length < 2) return null;
  for (let i = 1; i < vals.length; i++) if (vals[i]! < vals[i - 1]!) return null;
  return vals.at(-1)! - vals[0]!;
}

export function specAcceptanceLength(samples: readonly ServerSample[]): number | null {
  const drafts = counterDelta(samples, (s) => s.specDrafts);
  const accepted = counterDelta(samples, (s) => s.specAcceptedTokens);
  if (drafts !== null && accepted !== null && drafts > 0) return 1 + accepted / drafts;
  const gauges = samples
    .map((s) => s.specAcceptLength)
    .filter((v): v is number => typeof v === 'number' && v > 0);
  return gauges.length ? gauges.reduce((a, b) => a + b, 0) / gauges.length : null;
}

export function prefixCacheHitRatio(samples: readonly ServerSample[]): number | null {
  const hits = counterDelta(samples, (s) => s.prefixCacheHits);
  const queries = counterDelta(samples, (s) => s.prefixCacheQueries);
  if (hits === null || queries === null || queries <= 0) return null;
  return Math.min(1, Math.max(0, hits / queries));
}

// Time-weighted (trapezoid) mean of the power readings; a single reading is its own mean.
export function averagePowerW(samples: readonly ServerSample[]): number | null {
  const pts = samples
    .filter((s) => typeof s.powerW === 'number' && Number.isFinite(s.powerW))
    .map((s) => [s.tMs, s.powerW as number] as const)
    .sort((a, b) => a[0] - b[0]);
  if (pts.length === 0) return null;
  const span = pts.at(-1)![0] - pts[0]![0];
  if (pts.length === 1 || span <= 0) return pts.reduce((a, p) => a + p[1], 0) / pts.length;
  let area = 0;
  for (let i = 1; i < pts.length; i++)
    area += ((pts[i]![1] + pts[i - 1]![1]) / 2) * (pts[i]![0] - pts[i - 1]![0]);
  return area / span;
}
