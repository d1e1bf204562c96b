// What the client knows about a cell beyond the window figures, in one pure call for the runner: whether
// the client itself was the bottleneck, stalls, and how far the per-chunk token attribution can be trusted.
import { windowTokenErrorBound } from './attribution.js';
import { judgeClient, type ClientCheck, type ClientLoad } from './self-check.js';
import type { RequestRecord } from './types.js';

export interface ClientCellFigures {
  client?: ClientCheck; // when a ClientMonitor measured the window
  maxChunkGapMs: number | null; // largest gap between two chunks of one request inside the window
  stalls: number; // gaps of at least max(1 s, 10x the request's median gap), summed over requests
  chunkAttribution: 'exact' | 'estimated'; // estimated when any request's per-chunk counts are a split
  windowTokenErrorBound: number; // tokens the window count can be off by (0 when exact)
}

type CellRecord = Pick<RequestRecord, 'chunks' | 'chunkAttribution' | 'unpinnedTokens' | 'stalls'>;

export function clientCellFigures(
  records: readonly CellRecord[],
  window: { openMs: number; closeMs: number },
  o: { load?: ClientLoad; tbtMs?: number | null } = {},
): ClientCellFigures {
  let maxGap: number | null = null;
  let stalls = 0;
  let estimated = false;
  for (const r of records) {
    if (r.chunkAttribution === 'estimated') estimated = true;
    stalls += r.stalls ?? 0;
    const c = r.chunks;
    for (let i = 1; i < c.length; i++) {
      const t = c[i]![0];
      if (t < window.openMs || c[i - 1]![0] < window.openMs || t >= window.closeMs) continue;
      const g = t - c[i - 1]![0];
      if (maxGap === null || g > maxGap) maxGap = g;
    }
  }
  const out: ClientCellFigures = {
    maxChunkGapMs: maxGap,
    stalls,
    chunkAttribution: estimated ? 'estimated' : 'exact',
    windowTokenErrorBound: windowTokenErrorBound(records, window),
  };
  if (o.load) out.client = judgeClient(o.load, o.tbtMs);
  return out;
}
