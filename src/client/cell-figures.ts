// What the client knows about a cell beyond the window figures, in one pure call for the runner: whether
// the client itself was the bottleneck, and how far the per-chunk token attribution can be trusted.
import { windowTokenErrorBound } from './attribution.js';
import { judgeClient, type ClientCheck, type ClientLoad } from './self-check.js';
import type { RequestRecord } from './types.js';

export interface ClientCellFigures {
  client?: ClientCheck; // when a ClientMonitor measured the window
  chunkAttribution: 'exact' | 'estimated'; // estimated when any request's per-chunk counts are a split
  windowTokenErrorBound: number; // tokens the window count can be off by (0 when exact)
}

type CellRecord = Pick<RequestRecord, 'chunks' | 'chunkAttribution' | 'unpinnedTokens'>;

// The cell's gaps and stalls are window figures (src/stats/window.ts, through cell-result.ts), not these.
export function clientCellFigures(
  records: readonly CellRecord[],
  window: { openMs: number; closeMs: number },
  o: { load?: ClientLoad; tbtMs?: number | null } = {},
): ClientCellFigures {
  const out: ClientCellFigures = {
    chunkAttribution: records.some((r) => r.chunkAttribution === 'estimated') ? 'estimated' : 'exact',
    windowTokenErrorBound: windowTokenErrorBound(records, window),
  };
  if (o.load) out.client = judgeClient(o.load, o.tbtMs);
  return out;
}
