import type { MeasureWindow, TimedRequest } from './window.js';

// How long each request of a cell waited without a first token (up to the window close when it never got one):
// the client-side evidence of queueing (docs/method.md "Queueing seen by the client", no metrics).
export function firstTokenWaitsMs(requests: readonly TimedRequest[], w: MeasureWindow): number[] {
  const out: number[] = [];
  for (const r of requests) {
    if (r.sentAtMs >= w.closeMs) continue;
    if (r.firstTokenAtMs !== undefined) out.push(r.firstTokenAtMs - r.sentAtMs);
    else if (r.ok || r.errorKind === 'aborted') out.push(Math.min(r.endAtMs, w.closeMs) - r.sentAtMs);
  }
  return out;
}

// Time-average over the window of requests sent that have no first token yet.
export function avgPending(requests: readonly TimedRequest[], w: MeasureWindow): number | null {
  const len = w.closeMs - w.openMs;
  if (len <= 0) return null;
  let ms = 0;
  for (const r of requests) {
    const until = Math.min(r.firstTokenAtMs ?? r.endAtMs, r.endAtMs, w.closeMs);
    const from = Math.max(r.sentAtMs, w.openMs);
    if (until > from) ms += until - from;
  }
  return ms / len;
}
