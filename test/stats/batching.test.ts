import { describe, expect, it } from 'vitest';
import { makeRng } from '../../src/sim/rng.js';
import { readsOf, streamBatching, type StreamTimeline } from '../../src/stats/batching.js';

// Hand-made timelines, written apart from the judge: a server emits each request's events at its step times, a
// path between it and the client (direct, a loaded client, a proxy flushing on a timer, a filter holding the whole
// answer) decides when each event is read, and every event read together gets that read's one stamp.
interface Server {
  requests: number;
  tokens: number; // per request
  prefillMs: number;
  stepMs: number;
  jitter: number; // step time x (1 +- jitter)
  perTokenEvents?: boolean; // llama.cpp, TGI, Ollama: one event per token
  speculative?: number; // up to this many draft tokens accepted per step (acceptance drawn per step)
}

type Emission = { t: number; tokens: number };

function emit(s: Server, seed: number): Array<{ sentAtMs: number; events: Emission[] }> {
  const rng = makeRng(seed);
  return Array.from({ length: s.requests }, (_, i) => {
    const sentAtMs = 1000 + i * 3.7;
    let t = sentAtMs + s.prefillMs;
    const events: Emission[] = [{ t, tokens: 1 }]; // the prefill's step ends with the first token, alone
    let left = s.tokens - 1;
    while (left > 0) {
      t += s.stepMs * (1 + s.jitter * (2 * rng() - 1));
      let k = 1;
      if (s.speculative) while (k <= s.speculative && rng() < 0.6) k++;
      k = Math.min(k, left);
      left -= k;
      if (s.perTokenEvents) for (let j = 0; j < k; j++) events.push({ t, tokens: 1 });
      else events.push({ t, tokens: k });
    }
    return { sentAtMs, events };
  });
}

type Path = (events: Emission[], seed: number) => number[]; // the read time of each event

const direct: Path = (events) => events.map((e) => e.t + 0.08);

// A client whose event loop wakes late: it turns every 0.2 ms, and 3 turns in 10 stall for up to busyMs (0 to
// busyMs, uniform). An event is read at the first wake at or after it came in.
const loadedClient =
  (busyMs: number): Path =>
  (events, seed) => {
    const rng = makeRng(seed);
    let wake = events[0]!.t - 1;
    return events.map((e) => {
      while (wake < e.t) wake += 0.2 + (rng() < 0.3 ? busyMs * rng() : 0);
      return wake;
    });
  };
// That loop's delay at the median of its time: stalls uniform in [0, busyMs] cover almost all of it, each in
// proportion to its length, so half the time sits in stalls longer than busyMs / sqrt(2).
const typicalDelay = (busyMs: number) => busyMs / Math.SQRT2;

// A proxy that collects the stream and writes what it has every periodMs (its timer runs per connection).
const timedFlush =
  (periodMs: number): Path =>
  (events, seed) => {
    const phase = makeRng(seed)() * periodMs;
    return events.map((e) => Math.ceil((e.t - phase) / periodMs) * periodMs + phase + 0.1);
  };

// A compressing filter that holds the whole answer until its end (nginx gzip with a client that accepts gzip).
const holdAll: Path = (events) => events.map(() => events[events.length - 1]!.t + 0.3);

function timelines(s: Server, path: Path, seed = 1): StreamTimeline[] {
  return emit(s, seed).map(({ sentAtMs, events }, i) => {
    const at = path(events, seed * 1000 + i);
    return { sentAtMs, chunks: events.map((e, j): [number, number] => [at[j]!, e.tokens]) };
  });
}

const vllm: Server = { requests: 16, tokens: 64, prefillMs: 40, stepMs: 20, jitter: 0.2 };

describe('reads of a stream', () => {
  it('joins chunks stamped within half a millisecond (one read; undici stamps each frame µs apart)', () => {
    const chunks: Array<[number, number]> = [
      [10, 1],
      [10, 1],
      [10.0003, 1],
      [11, 1],
      [30, 2],
    ];
    expect(readsOf(chunks)).toEqual([
      [3, 10],
      [1, 11],
      [1, 30],
    ]);
  });
});

describe('streamBatching', () => {
  it('a direct stream is not held: one event per read, the first token alone', () => {
    const b = streamBatching(timelines(vllm, direct));
    expect(b.batched).toBe(false);
    expect(b.requests).toBe(16);
    expect(b.eventsPerRead).toBe(1);
    expect(b.firstHeldShare).toBe(0);
    expect(b.heldMs).toBeGreaterThan(16);
    expect(b.heldMs).toBeLessThan(24);
  });

  it('a proxy flushing every 200 ms over 20 ms steps is: about ten events per read, the first token held', () => {
    const b = streamBatching(timelines(vllm, timedFlush(200)));
    expect(b.batched).toBe(true);
    expect(b.eventsPerRead).toBeGreaterThan(6);
    expect(b.firstHeldShare).toBeGreaterThanOrEqual(0.75);
    expect(b.heldMs).toBeCloseTo(200, 0);
  });

  it('a filter that holds the whole answer is: one read per stream, held from the send', () => {
    const b = streamBatching(timelines(vllm, holdAll));
    expect(b.batched).toBe(true);
    expect(b.eventsPerRead).toBe(64);
    expect(b.firstHeldShare).toBe(1);
    // 40 ms prefill + 63 steps of about 20 ms
    expect(b.heldMs).toBeGreaterThan(1200);
    expect(b.heldMs).toBeLessThan(1450);
  });

  it('speculative decoding with a step per event (vLLM, SGLang) is not held', () => {
    const s = { ...vllm, speculative: 4 };
    const b = streamBatching(timelines(s, direct), { specAcceptanceLength: 2.4 });
    expect(b.batched).toBe(false);
    expect(b.eventsPerRead).toBe(1);
    expect(b.eventsPerStep).toBeLessThan(1.2); // about 2.2 tokens per event already
  });

  it('speculative decoding with one event per token (llama.cpp, TGI) is not held, acceptance known or not', () => {
    // up to 9 tokens per step, written as 9 events at once: many events per read, but the first token alone
    const s: Server = { ...vllm, perTokenEvents: true, speculative: 8, tokens: 200 };
    const tl = timelines(s, direct);
    const known = streamBatching(tl, { specAcceptanceLength: 2.5 });
    const unknown = streamBatching(tl);
    expect(unknown.eventsPerRead).toBeGreaterThan(2);
    expect(known.eventsPerStep).toBeCloseTo(2.5, 1);
    expect(known.batched).toBe(false);
    expect(unknown.firstHeldShare).toBe(0);
    expect(unknown.batched).toBe(false);
  });

  it('the same engine behind a 200 ms flush is held: events per read far above its acceptance', () => {
    const s: Server = { ...vllm, perTokenEvents: true, speculative: 4, tokens: 200 };
    const b = streamBatching(timelines(s, timedFlush(200)), { specAcceptanceLength: 2.5 });
    expect(b.eventsPerRead).toBeGreaterThan(2 * 2.5);
    expect(b.batched).toBe(true);
  });

  it('a loaded client reads several events at once, but only while its loop runs late', () => {
    const fast: Server = { ...vllm, stepMs: 2, jitter: 0.1 };
    const tl = timelines(fast, loadedClient(60));
    const b = streamBatching(tl, { loopDelayTimeP50Ms: typicalDelay(60) });
    expect(b.eventsPerRead).toBeGreaterThan(4);
    expect(b.firstHeldShare).toBeGreaterThan(0.1);
    expect(b.batched).toBe(false);
    // the client's own loop is what tells it apart: the same arrivals with a loop on time are held
    expect(streamBatching(tl, { loopDelayTimeP50Ms: 0.5 }).batched).toBe(true);
    // a client that was the bottleneck (a saturated worker whose delay the main thread's loop does not show)
    expect(streamBatching(tl, { loopDelayTimeP50Ms: 0.5, clientBound: true }).batched).toBe(false);
  });

  it('a fast server read a few events at a time is not held: reads only ms apart', () => {
    const fast: Server = { ...vllm, stepMs: 1, jitter: 0.1, tokens: 256 };
    // even taken as a client on time: the reads are a few ms apart, below the floor
    const b = streamBatching(timelines(fast, loadedClient(6)), { loopDelayTimeP50Ms: 0.5 });
    expect(b.heldMs).toBeLessThan(20);
    expect(b.batched).toBe(false);
  });

  it('a hold shorter than a step leaves one event per read and is not seen', () => {
    const slow: Server = { ...vllm, stepMs: 300, tokens: 16 };
    const b = streamBatching(timelines(slow, timedFlush(200)));
    expect(b.eventsPerRead).toBeLessThan(1.5);
    expect(b.batched).toBe(false);
  });

  it('judges only requests with at least four token events', () => {
    const short: Server = { ...vllm, tokens: 3 };
    const b = streamBatching(timelines(short, holdAll));
    expect(b).toMatchObject({ batched: false, requests: 0, heldMs: null });
  });

  it('a few held requests among many direct ones are not enough', () => {
    const held = timelines({ ...vllm, requests: 4 }, holdAll);
    const free = timelines({ ...vllm, requests: 12 }, direct, 2);
    expect(streamBatching([...held, ...free]).batched).toBe(false);
  });
});
