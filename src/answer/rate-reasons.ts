import { engineSettings, type EngineSettings } from '../engines/index.js';
import { contextLabel, fmtInt, fmtMs, fmtTokS } from '../format/index.js';
import type { LoadLevel, RunResult, ServiceLevel } from '../results/schema.js';
import { bindingAt, needFor, serverLimits, type Binding, type ServerLimits } from './limits.js';
import { rateOf, type LevelJudgement, type RowRateAnswer } from './levels.js';
import { gpuChange, reqS, seatsWord } from './words.js';

// Why the answer in requests per second stops where it does (docs/workloads.md "Why not a higher rate"): the first
// rate above it that fails the level, read as the users at once it asks for (Little's law: arrivals per second ×
// seconds each request holds a seat), then judged on the engine's limits as the closed loop's reason is
// (src/answer/reasons.ts): the seats, the KV cache, the per-user speed, the first token, the errors. Pure.

export type RateLimitKind = 'queue' | 'seats-kv' | 'kv' | 'speed' | 'ttft' | 'errors' | 'unmeasured';

export interface RateReason {
  kind: RateLimitKind;
  rate: number; // the level the reason reads
  inFlight?: number; // requests that rate keeps running at once, about
  text: string;
  change: string;
  setting?: string; // the engine's setting named, where one moves it
}

const GPU_CHANGE = gpuChange('or the rate spread over replicas');

/** The seconds a request holds a seat at this level: its end-to-end time less the wait for a first token beyond the
 * level's unqueued one (the client's reference), at the median. */
function serviceS(l: LoadLevel): number | undefined {
  const e2e = l.e2eMs.p50;
  if (e2e === null) return undefined;
  const ttft = l.ttftMs.p50 ?? 0;
  const ref = l.queue?.clientQueue?.referenceTtftMs ?? ttft;
  return Math.max(0, e2e - Math.max(0, ttft - ref)) / 1000;
}

/** Requests running at once, as the client or the server's gauge saw them: the most. */
function peakRunning(l: LoadLevel): number | undefined {
  const seen = [
    l.queue?.clientQueue?.peakStreaming,
    ...(l.serverSamples ?? []).map((s) => s.running ?? undefined),
  ].filter((x): x is number => typeof x === 'number' && x > 0);
  return seen.length ? Math.max(...seen) : undefined;
}

/** The reason for a row's answer in requests per second; undefined where a rate too close to call is the limit
 * (the answer's notes say what would decide it) or no rate was judged. */
export function rateReason(r: RunResult, a: RowRateAnswer, slo: ServiceLevel): RateReason | undefined {
  if (a.capacity && a.atLeast) {
    const top = rateOf(a.capacity.level);
    return {
      kind: 'unmeasured',
      rate: top,
      text: `Every rate measured met the level, up to ${reqS(top)}.`,
      // Flags added to the command that printed it: a later --rates replaces the list, and --find-rate starts from
      // one rate (src/config/traffic.ts), so a search goes on from the highest met.
      change:
        r.config.load?.model === 'open' && r.config.load.findRate
          ? `search on from the highest met: --rates ${top}`
          : `measure higher rates: --rates ${top * 2},${top * 4}, or search from the highest met: --find-rate --rates ${top}`,
    };
  }
  const j = a.limit ?? (a.capacity ? undefined : a.levels.find((x) => x.verdict === 'fails'));
  if (!j) return undefined;
  return failingReason(r, j, slo, /^\d+$/.test(a.row) ? Number(a.row) : undefined);
}

// The level a reason reads, as every kind of reason words it.
interface Failing {
  r: RunResult;
  l: LoadLevel;
  slo: ServiceLevel;
  rate: number;
  at: string; // "At 2.5 req/s"
  e: EngineSettings & { engine: string };
  base: Pick<RateReason, 'rate' | 'inFlight'>;
  inFlight: number | undefined;
  need: string | undefined; // the users at once the rate asks for, in words
}

function failingReason(
  r: RunResult,
  j: LevelJudgement,
  slo: ServiceLevel,
  contextTokens: number | undefined,
): RateReason {
  const l = j.level;
  const rate = rateOf(l);
  const at = `At ${reqS(rate)}`;
  const e = engineSettings(r.engine.name);
  const errors = errorsReason(l, rate, at);
  if (errors) return errors;
  const s = serviceS(l);
  const inFlight = s !== undefined ? rate * s : undefined;
  const need =
    inFlight !== undefined
      ? `about ${Math.ceil(inFlight)} running at once (${rate}/s × ${s!.toFixed(1)} s each)`
      : undefined;
  const base = { rate, ...(inFlight !== undefined ? { inFlight } : {}) };
  const f: Failing = { r, l, slo, rate, at, e, base, inFlight, need };
  const misses = j.share?.misses;
  const ttftMiss = misses ? misses.ttft >= misses.rate : slo.tokensPerS === undefined;
  const queued = l.status === 'Requests queued' || l.queue?.clientQueue?.queued === true;
  if (queued && ttftMiss) return queueReason(f, contextTokens);
  if (!ttftMiss && slo.tokensPerS !== undefined) return speedReason(f, slo.tokensPerS);
  return ttftReason(f);
}

// A tenth of the arrivals failed or did not finish, or the level failed: the errors are the reason.
function errorsReason(l: LoadLevel, rate: number, at: string): RateReason | undefined {
  const failed = l.requests.failed + l.requests.unfinished;
  if (!(l.status === 'Failed' || (l.requests.arrived > 0 && failed / l.requests.arrived >= 0.1)))
    return undefined;
  return {
    kind: 'errors',
    rate,
    text:
      `${at} ${fmtInt(failed)} of ${fmtInt(l.requests.arrived)} requests failed or did not finish` +
      `${l.error ? ` (${l.error})` : l.requests.unfinished ? ` (${fmtInt(l.requests.unfinished)} still running at the drain timeout)` : ''}.`,
    change: "a lower rate, or the errors fixed first: the level's requests in requests.jsonl carry them",
  };
}

// The first token waited for a seat: the KV cache where that many do not fit in it, else the seats.
function queueReason(f: Failing, contextTokens: number | undefined): RateReason {
  const { r, l, inFlight } = f;
  const lim = serverLimits(r);
  const peak = peakRunning(l);
  const seats = lim.seats ?? peak;
  const wait = `TTFT p50 ${fmtMs(l.ttftMs.p50)} from arrival`;
  const ran =
    lim.seats !== undefined
      ? `the server runs ${lim.seatsSeen ? 'about ' : ''}${lim.seats} at once (${lim.seatsSource})`
      : peak !== undefined
        ? `the server ran at most ${peak} at once`
        : 'the server ran fewer at once';
  const N = inFlight !== undefined ? Math.ceil(inFlight) : undefined;
  const b =
    contextTokens !== undefined && N !== undefined && seats !== undefined
      ? bindingAt({ ...lim, seats }, contextTokens, N, r.config.maxOutput)
      : undefined;
  if (b?.kv === true && N !== undefined && contextTokens !== undefined)
    return kvReason(f, { lim, b, N, contextTokens, ran, wait });
  return seatsReason(f, { lim, seats, N, ran, wait });
}

interface QueueWords {
  lim: ServerLimits;
  ran: string; // what the server runs at once, in words
  wait: string; // the first token's wait, in words
}

// The seats too where that many pass them; within them the KV cache alone is short.
function kvReason(f: Failing, q: QueueWords & { b: Binding; N: number; contextTokens: number }): RateReason {
  const { r, e, at, need } = f;
  const { lim, b, N, contextTokens, ran, wait } = q;
  const want = needFor(lim, b, contextTokens, N, r.config.maxOutput);
  const setting = lim.engine.setting(want);
  return {
    ...f.base,
    kind: want.seats ? 'seats-kv' : 'kv',
    text:
      `${at} the arrivals keep ${need}; ${ran}, and ${N} at ${contextLabel(contextTokens)} with answers up to ` +
      `${contextLabel(r.config.maxOutput)} need ${fmtInt(b.need)} tokens of KV cache` +
      `${lim.kvTokens !== undefined ? `, more than its ${fmtInt(lim.kvTokens)}` : ''}: the others waited (${wait}).`,
    change: want.seats
      ? `${e.engine}: ${setting} together (more KV cache runs no more at once, more ${seatsWord(lim)} do not fit)`
      : `${e.engine}: ${setting}; or shorter answers (--max-output)`,
    setting,
  };
}

// Arrivals at a rate come in bursts: a mean within the seats still queues as it nears them (an M/D/c queue).
function seatsReason(
  f: Failing,
  q: QueueWords & { seats: number | undefined; N: number | undefined },
): RateReason {
  const { e, at, need } = f;
  const { lim, seats, N, ran, wait } = q;
  const near = N !== undefined && seats !== undefined && N <= seats;
  return {
    ...f.base,
    kind: 'queue',
    text: near
      ? `${at} the arrivals keep ${need} on average, close to the ${seats} the server ` +
        `${lim.seats !== undefined ? `runs at once (${lim.seatsSource})` : 'ran at most at once'}: ` +
        `bursts of arrivals pass it and wait for a seat (${wait}).`
      : `${at} the arrivals keep ${need ?? 'more running at once than it runs'}; ${ran}: the others waited for a seat (${wait}).`,
    change:
      `${e.engine}: raise ${e.seats}${near ? ', for room over the bursts' : N !== undefined ? ` above about ${N}` : ''}` +
      `${seats !== undefined ? ` (${seats} now)` : ''}${e.seatsNote ? `; ${e.seatsNote}` : ''}; or the rate spread over replicas`,
    setting: e.seats,
  };
}

function speedReason(f: Failing, tokensPerS: number): RateReason {
  const { l, at, need } = f;
  return {
    ...f.base,
    kind: 'speed',
    text:
      `${at} ${need ? `the arrivals keep ${need} and ` : ''}each request decoded at ${fmtTokS(l.perRequestTokensPerS.p50)} tok/s ` +
      `(median), below the ${tokensPerS} tok/s asked: a batch that large makes every step slower.`,
    change: GPU_CHANGE,
  };
}

function ttftReason(f: Failing): RateReason {
  const { l, at, e, slo } = f;
  return {
    ...f.base,
    kind: 'ttft',
    text:
      `${at} the first token came late without a queue for a seat (TTFT p90 ${fmtMs(l.ttftMs.p90)}` +
      `${slo.ttftMs !== undefined ? ` against the ${fmtMs(slo.ttftMs)} asked` : ''}): arriving prompts are prefilled between the running requests' steps.`,
    change: e.chunk
      ? `${e.engine}: ${e.chunk} (a larger prefill chunk per step), or ${GPU_CHANGE.slice(GPU_CHANGE.indexOf(':') + 2)}`
      : GPU_CHANGE,
    ...(e.chunk ? { setting: e.chunk } : {}),
  };
}
