// Streams held back on the way (docs/method.md "Streams held back between client and server"): a proxy, gateway
// or compression filter that collects a stream's events and passes them on in bursts moves every arrival the
// client stamps, so TTFT and time between tokens become the middlebox's timing, not the server's. Told apart from
// what a server does itself by three signs together, from the arrivals alone:
// 1. Many token events per read, far above what the server writes per step. An engine writes a step's tokens in
//    one event (vLLM, SGLang, TensorRT-LLM: speculative tokens too), or one event per token (llama.cpp, TGI,
//    Ollama), where a speculative step writes its accepted tokens at once: the acceptance length per read.
// 2. The first token waited for later ones: it arrives in one read with the next tokens in most requests. A
//    server sends its first token alone, at the end of the prefill; speculation starts with the next step.
// 3. The reads are held long: above a floor, and far above the delay the client's own loop typically had (a
//    client reads several events at once too, but only over as long as its loop ran late).

import { median, sortSamples } from './sorted.js';

/** What the judge needs from a request: its send time and token-bearing chunk arrivals ([arrivalMs, tokens]). */
export interface StreamTimeline {
  sentAtMs: number;
  chunks: ReadonlyArray<readonly [number, number]>;
}

export interface BatchingContext {
  loopDelayTimeP50Ms?: number; // the client's loop delay at the median of the window's time (src/client/self-check.ts)
  clientBound?: boolean; // the client was the bottleneck (a saturated worker too): its own reads may be the bursts
  specAcceptanceLength?: number | null; // mean tokens per step the server reported, when it speculates
}

export interface StreamBatching {
  batched: boolean;
  requests: number; // requests judged: at least MIN_EVENTS token events
  eventsPerRead: number; // token events per read that carried any, over the judged requests
  eventsPerStep: number; // events the server itself writes per step, from its speculation and chunk sizes
  firstHeldShare: number; // share of judged requests whose first token arrived in one read with later ones
  heldMs: number | null; // median gap between reads (a stream that came in one read: its wait from the send)
}

/** Chunks stamped closer than this came in one read (one stamp per read; undici's per-frame stamps µs apart). */
export const READ_JOIN_MS = 0.5;
/** A request with fewer token events says too little about how they were grouped. */
export const MIN_EVENTS = 4;
/** Events per read at or above max(this, EVENTS_OVER_STEP x the server's events per step)... */
export const MIN_EVENTS_PER_READ = 4;
export const EVENTS_OVER_STEP = 2;
/** ... in at least this share of requests the first token waited for later ones ... */
export const FIRST_HELD_SHARE = 0.5;
/** ... and reads held at least max(this, LOOP_DELAY_FACTOR x the client's typical loop delay). */
export const MIN_HELD_MS = 20;
export const LOOP_DELAY_FACTOR = 2;

/** Sizes (events) and arrivals of one request's reads that carried token events. */
export function readsOf(chunks: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const reads: Array<[number, number]> = [];
  let last = -Infinity;
  for (const [t] of chunks) {
    const open = reads[reads.length - 1];
    if (open && t - last <= READ_JOIN_MS) open[0]++;
    else reads.push([1, t]);
    last = t;
  }
  return reads;
}

export function streamBatching(
  requests: readonly StreamTimeline[],
  ctx: BatchingContext = {},
): StreamBatching {
  let events = 0;
  let reads = 0;
  let tokens = 0;
  let judged = 0;
  let firstHeld = 0;
  const held: number[] = [];
  for (const r of requests) {
    if (r.chunks.length < MIN_EVENTS) continue;
    const rs = readsOf(r.chunks);
    judged++;
    events += r.chunks.length;
    reads += rs.length;
    for (const c of r.chunks) tokens += c[1];
    if (rs[0]![0] > 1) firstHeld++;
    if (rs.length === 1) held.push(rs[0]![1] - r.sentAtMs);
    for (let i = 1; i < rs.length; i++) held.push(rs[i]![1] - rs[i - 1]![1]);
  }
  const eventsPerRead = reads > 0 ? events / reads : 0;
  // Speculative tokens in one event need no read of their own; one event per token does (acceptance per step).
  const tokensPerEvent = events > 0 ? tokens / events : 1;
  const eventsPerStep = Math.max(1, (ctx.specAcceptanceLength ?? 1) / Math.max(1, tokensPerEvent));
  const firstHeldShare = judged > 0 ? firstHeld / judged : 0;
  const heldMs = median(sortSamples(held));
  const batched =
    judged > 0 &&
    ctx.clientBound !== true &&
    eventsPerRead >= Math.max(MIN_EVENTS_PER_READ, EVENTS_OVER_STEP * eventsPerStep) &&
    firstHeldShare >= FIRST_HELD_SHARE &&
    heldMs !== null &&
    heldMs >= Math.max(MIN_HELD_MS, LOOP_DELAY_FACTOR * (ctx.loopDelayTimeP50Ms ?? 0));
  return { batched, requests: judged, eventsPerRead, eventsPerStep, firstHeldShare, heldMs };
}
