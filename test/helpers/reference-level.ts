// The figures of a load level (docs/workloads.md "Figures of a load level"), written again from the text alone and
// from the sim's truth log (what the server did, not what the client recorded), so a formula error in
// src/stats/level.ts cannot cancel out of a test that compares against it. As reference-figures.ts for a cell.

export interface TruthRequest {
  arrivalMs: number; // reached the server: the scheduled time, where the client kept to its schedule
  firstTokenMs?: number;
  endMs: number;
  chunks: ReadonlyArray<readonly [number, number]>; // [sent ms, tokens]
  reason: string; // 'length' | 'stop' end ok; anything else did not
}

export interface ReferenceSlo {
  ttftMs?: number;
  tokensPerS?: number;
}

export interface ReferencePercentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export interface ReferenceLevel {
  arrived: number;
  completed: number;
  offeredRate: number;
  achievedRate: number;
  met: number;
  goodput: number;
  ttftMs: ReferencePercentiles;
  e2eMs: ReferencePercentiles;
}

// The value at rank (n - 1) q, between the two closest ranks by linear interpolation (numpy's default).
function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(below + 1, s.length - 1);
  return s[below]! + (s[above]! - s[below]!) * (at - below);
}

const percentiles = (v: readonly number[]): ReferencePercentiles => ({
  p50: percentile(v, 0.5),
  p90: percentile(v, 0.9),
  p99: percentile(v, 0.99),
});

const endedOk = (r: TruthRequest): boolean => r.reason === 'length' || r.reason === 'stop';

export function referenceLevel(
  truth: readonly TruthRequest[],
  openMs: number,
  closeMs: number,
  slo: ReferenceSlo,
): ReferenceLevel {
  const seconds = (closeMs - openMs) / 1000;
  const mine = truth.filter((r) => r.arrivalMs >= openMs && r.arrivalMs < closeMs);
  const ttft: number[] = [];
  const e2e: number[] = [];
  let met = 0;
  let completed = 0;
  for (const r of mine) {
    if (r.firstTokenMs !== undefined) ttft.push(r.firstTokenMs - r.arrivalMs);
    if (!endedOk(r)) continue;
    completed += 1;
    e2e.push(r.endMs - r.arrivalMs);
    // Its decode rate over the whole stream: the tokens after its first chunk over the first to the last chunk.
    const tokens = r.chunks.reduce((a, [, n]) => a + n, 0) - (r.chunks[0]?.[1] ?? 0);
    const spanMs = r.chunks.length > 1 ? r.chunks.at(-1)![0] - r.chunks[0]![0] : 0;
    const fast = slo.ttftMs === undefined || (r.firstTokenMs ?? r.endMs) - r.arrivalMs <= slo.ttftMs;
    const quick = slo.tokensPerS === undefined || (spanMs > 0 && (tokens * 1000) / spanMs >= slo.tokensPerS);
    if (fast && quick) met += 1;
  }
  const achieved = truth.filter((r) => endedOk(r) && r.endMs >= openMs && r.endMs < closeMs).length;
  return {
    arrived: mine.length,
    completed,
    offeredRate: mine.length / seconds,
    achievedRate: achieved / seconds,
    met,
    goodput: met / seconds,
    ttftMs: percentiles(ttft),
    e2eMs: percentiles(e2e),
  };
}
