// The cell figures of docs/method.md ("Figures of a cell"), written again from the text alone and deliberately
// naive, so a formula error in src/stats/window.ts cannot cancel out of a test that compares against it.
export interface ReferenceRequest {
  sentAtMs: number;
  firstTokenAtMs?: number;
  endAtMs: number;
  chunks: ReadonlyArray<readonly [number, number]>; // [arrival epoch ms, tokens]
  ok: boolean;
}

export interface ReferenceFigures {
  outputTokens: number;
  totalTokensPerS: number;
  perRequestTokensPerS: number | null;
  ttftMs: number | null;
  tbtMs: number | null;
  avgActive: number;
  completed: number;
}

// The middle value, or the mean of the two middle values.
function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function referenceFigures(
  requests: readonly ReferenceRequest[],
  openMs: number,
  closeMs: number,
): ReferenceFigures {
  const inside = (t: number) => t >= openMs && t < closeMs;
  const seconds = (closeMs - openMs) / 1000;
  let outputTokens = 0;
  let activeMs = 0;
  let completed = 0;
  const rates: number[] = [];
  const gaps: number[] = [];
  const ttfts: number[] = [];
  for (const r of requests) {
    const mine = r.chunks.filter(([t, n]) => inside(t) && n > 0);
    const tokens = mine.reduce((sum, [, n]) => sum + n, 0);
    outputTokens += tokens;
    if (mine.length >= 2) {
      // tokens after the first in-window chunk, over the time from that chunk to the last in-window one
      const after = tokens - mine[0]![1];
      const spanMs = mine[mine.length - 1]![0] - mine[0]![0];
      if (after > 0 && spanMs > 0) {
        rates.push(after / (spanMs / 1000));
        gaps.push(spanMs / after);
      }
    }
    if (r.firstTokenAtMs !== undefined) {
      if (r.sentAtMs < closeMs) ttfts.push(r.firstTokenAtMs - r.sentAtMs);
      const overlap = Math.min(r.endAtMs, closeMs) - Math.max(r.firstTokenAtMs, openMs);
      if (overlap > 0) activeMs += overlap;
    }
    if (r.ok && inside(r.endAtMs)) completed += 1;
  }
  return {
    outputTokens,
    totalTokensPerS: outputTokens / seconds,
    perRequestTokensPerS: median(rates),
    ttftMs: median(ttfts),
    tbtMs: median(gaps),
    avgActive: activeMs / (closeMs - openMs),
    completed,
  };
}
