// bench:ingest's first-token figures, from the client results and the emitter's logs (pure).
// TTFT error: client stamp of a request's first token event − the emitter's write time of that event, over
// the re-sends (every request a slot sent after its first one: the burst when all first requests end in the
// same engine step). Send-stamp error: the emitter's first read of the request − the client's send stamp; it
// holds the loopback delivery and the time the emitter took to get to the read, so it bounds from above how
// early the client's stamp is, and is known only for clients that stamp their write.
import { quantile } from './lib/out.js';
import type { ClientResult } from './ingest-clients.js';

export interface SlotResult {
  id: string;
  resend: boolean; // not the slot's first request
  r: ClientResult;
}

export interface FirstTokenFigures {
  ttftErrP50Ms: number | null;
  ttftErrP99Ms: number | null;
  ttftSamples: number;
  ttftMissing: number; // re-sends with no first token (or no emitter write) by the end of the run
  sendErrP50Ms: number | null;
  sendErrP99Ms: number | null;
  sendSamples: number;
}

const r3 = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

export function firstTokenFigures(
  results: readonly SlotResult[],
  writes: Record<string, number[] | undefined>,
  arrivals: Record<string, number | undefined>,
): FirstTokenFigures {
  const ttft: number[] = [];
  const send: number[] = [];
  let missing = 0;
  for (const { id, resend, r } of results) {
    if (!resend) continue;
    const first = r.chunks[0]?.[0];
    const written = writes[id]?.[0];
    if (first === undefined || written === undefined) missing += 1;
    else ttft.push(first - written);
    const arrived = arrivals[id];
    if (arrived !== undefined && r.sentAtMs !== undefined && r.sentAtMs > 0) send.push(arrived - r.sentAtMs);
  }
  return {
    ttftErrP50Ms: r3(quantile(ttft, 0.5)),
    ttftErrP99Ms: r3(quantile(ttft, 0.99)),
    ttftSamples: ttft.length,
    ttftMissing: missing,
    sendErrP50Ms: r3(quantile(send, 0.5)),
    sendErrP99Ms: r3(quantile(send, 0.99)),
    sendSamples: send.length,
  };
}
