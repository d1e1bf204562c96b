import { engineSettings } from '../engines/index.js';
import { contextLabel, fmtInt, fmtMs, fmtTokS } from '../format/index.js';
import type { LoadLevel, RunResult, ServiceLevel } from '../results/schema.js';
import { bindingAt, needFor, serverLimits, type ServerLimits } from './limits.js';
import { rateOf, type LevelJudgement, type RowRateAnswer } from './levels.js';

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

const GPU_CHANGE =
  'no setting raises it: more or faster GPUs (tensor parallel), or the rate spread over replicas';

const fmtRate = (r: number) => `${r} req/s`;
const seatsWord = (l: ServerLimits) => (l.engine.name === 'llamacpp' ? 'slots' : 'seats');

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
      text: `Every rate measured met the level, up to ${fmtRate(top)}.`,
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

function failingReason(
  r: RunResult,
  j: LevelJudgement,
  slo: ServiceLevel,
  contextTokens: number | undefined,
): RateReason {
  const l = j.level;
  const rate = rateOf(l);
  const at = `At ${fmtRate(rate)}`;
  const e = engineSettings(r.engine.name);
  const failed = l.requests.failed + l.requests.unfinished;
  if (l.status === 'Failed' || (l.requests.arrived > 0 && failed / l.requests.arrived >= 0.1))
    return {
      kind: 'errors',
      rate,
      text:
        `${at} ${fmtInt(failed)} of ${fmtInt(l.requests.arrived)} requests failed or did not finish` +
        `${l.error ? ` (${l.error})` : l.requests.unfinished ? ` (${fmtInt(l.requests.unfinished)} still running at the drain timeout)` : ''}.`,
      change: "a lower rate, or the errors fixed first: the level's requests in requests.jsonl carry them",
    };
  const s = serviceS(l);
  const inFlight = s !== undefined ? rate * s : undefined;
  const need =
    inFlight !== undefined
      ? `about ${Math.ceil(inFlight)} running at once (${rate}/s × ${s!.toFixed(1)} s each)`
      : undefined;
  const misses = j.share?.misses;
  const ttftMiss = misses ? misses.ttft >= misses.rate : slo.tokensPerS === undefined;
  const queued = l.status === 'Requests queued' || l.queue?.clientQueue?.queued === true;
  const base = { rate, ...(inFlight !== undefined ? { inFlight } : {}) };
  if (queued && ttftMiss) {
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
    if (b?.kv === true && N !== undefined && contextTokens !== undefined) {
      // The seats too where that many pass them; within them the KV cache alone is short.
      const want = needFor(lim, b, contextTokens, N, r.config.maxOutput);
      const setting = lim.engine.setting(want);
      return {
        ...base,
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
    const near = N !== undefined && seats !== undefined && N <= seats;
    return {
      ...base,
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
  if (!ttftMiss && slo.tokensPerS !== undefined)
    return {
      ...base,
      kind: 'speed',
      text:
        `${at} ${need ? `the arrivals keep ${need} and ` : ''}each request decoded at ${fmtTokS(l.perRequestTokensPerS.p50)} tok/s ` +
        `(median), below the ${slo.tokensPerS} tok/s asked: a batch that large makes every step slower.`,
      change: GPU_CHANGE,
    };
  return {
    ...base,
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
