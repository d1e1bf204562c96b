import { servingLimits } from './serving-limits.js';
import { isOverCapacity } from '../plan/capacity.js';
import type { CellStatus, ServerSample } from '../results/schema.js';
import { decideStatus } from '../stats/status.js';
import type { QuantileSet } from '../stats/sorted.js';
import { windowFigures, type TimedRequest } from '../stats/window.js';
import { apiDelayMs } from './curves.js';
import type { Profile } from './profile-schema.js';
import { mixSeed } from './rng.js';
import { Scheduler, type RequestSpec } from './scheduler.js';
import { DEFAULT_MAX_OUTPUT } from '../cell-rules.js';

// The method (docs/method.md) applied to the engine model in virtual time, without HTTP: a what-if planner and the
// model half of calibration (bench/calibrate.ts runs the real client against the HTTP sim for the other half).
// The figures, the status and the capacity rule are the runner's own (stats/window, stats/status,
// plan/capacity), so a what-if and a run of the same engine can only differ in what the engine did.

// The runner's defaults (src/config/options.ts): a what-if asks what `run` would have measured.
const DEFAULT_RAMP_TIMEOUT_S = 30;
const DEFAULT_WINDOW_S = 30;
const SAMPLE_INTERVAL_MS = 1000; // --metrics-interval's default: the waiting samples the status rule reads

export interface CellPlan {
  contextTokens: number;
  concurrency: number;
  maxOutput?: number; // default DEFAULT_MAX_OUTPUT
  windowS?: number; // default 30
  rampTimeoutS?: number; // default 30
  seed?: number;
  // Idle time between a request's end and its slot's next send: how a twin models a restart loss its TTFT does
  // not show (src/twin/restart-loss.ts); 0 for a client that re-sends at once, as the runner does.
  resendGapMs?: number;
  // Slots whose prompts the cell before (same context, a lower level) left in the prefix cache: a run measures a
  // context's levels in ascending order with the same slot prompts, so only the new slots warm up cold.
  cachedSlots?: number;
  // Speculative steps yield the mean accepted tokens rather than a draw (Scheduler): a twin's prediction.
  expectedAcceptance?: boolean;
}

export interface CellFigures {
  totalTokensPerS: number;
  perRequestTokensPerS: number | null;
  tbtMs: number | null;
  ttftMs: number | null;
  ttft: QuantileSet; // p50 (= ttftMs), p90, p99 over the ramp's and the window's first tokens
  chunkGapMs: QuantileSet; // gaps between a request's chunks in the window (a speculative step's tokens share one)
  specAcceptanceLength: number | null; // 1 + accepted / drafts over the cell, as the server's counters give it
  rampTimedOut: boolean; // the window opened at the ramp timeout, before every slot had a first token
  avgActive: number;
  completed: number;
  outputTokens: number;
  maxWaiting: number;
  status: CellStatus;
}

// Distinct prompt per slot (no shared prefix), identical across the cell's requests of that slot.
function slotSpec(
  id: string,
  slot: number,
  ctx: number,
  bs: number,
  arrivalMs: number,
  maxTokens: number,
): RequestSpec {
  const base = (slot + 1) * 1e7 + ctx;
  return {
    id,
    arrivalMs,
    promptTokens: ctx,
    blockHashes: Array.from({ length: Math.floor(ctx / bs) }, (_, i) => base * 1e5 + i),
    maxTokens,
    ignoreEos: true,
  };
}

// Cold prefill: prompt tokens / time to first token of a never-seen prompt on an idle engine.
export function simulatePrefill(
  profile: Profile,
  contextTokens: number,
): { ttftMs: number; tokensPerS: number } {
  const s = new Scheduler(profile, 1);
  const arrive = apiDelayMs(profile, contextTokens);
  s.submit(slotSpec('p', 999_999, contextTokens, profile.blockSize, arrive, 1));
  let t = arrive;
  for (;;) {
    const plan = s.plan(t);
    if (!plan) throw new Error('prefill did not complete');
    const out = s.complete(plan);
    t = plan.endMs;
    if (out.length > 0) return { ttftMs: t, tokensPerS: (contextTokens / t) * 1000 };
  }
}

// The client's first-token deadline: 60 s + 1 ms per prompt token (docs/performance.md "Streaming one request
// (programmatic API)"; src/client/transport/timeouts.ts, which the sim may not import; a test keeps the two equal).
export const firstTokenDeadlineMs = (promptTokens: number): number => 60_000 + Math.ceil(promptTokens);

// Cache warm-up (after the slots the cell before left cached): every slot once with max_tokens 1, all at once
// through the API server. One still waiting for its first token at the client's deadline is given up (the runner
// aborts it; what it computed stays cached), so a cell whose cold prefill outlasts it starts its ramp half cold,
// as a measured one does. Returns the time the ramp starts.
function warmUp(s: Scheduler, N: number, C: number, cachedSlots: number): number {
  const bs = s.profile.blockSize;
  let t = 0;
  for (let i = 0; i < Math.min(cachedSlots, N); i++) s.submit(slotSpec(`c${i}`, i, C, bs, 0, 1));
  for (let p = s.plan(t); p; p = s.plan(t)) {
    s.complete(p);
    t = p.endMs;
  }
  for (let i = 0; i < cachedSlots; i++) s.abort(`c${i}`); // any the cache could not take
  for (let i = 0; i < N; i++) s.submit(slotSpec(`w${i}`, i, C, bs, s.api.arrivalMs(t, C), 1));
  const deadline = t + firstTokenDeadlineMs(C);
  while (t < deadline) {
    const p = s.plan(t);
    if (p) {
      s.complete(p);
      t = p.endMs;
      continue;
    }
    const next = s.nextArrivalMs();
    if (next === undefined) return t;
    t = Math.max(t, next);
  }
  for (let i = 0; i < N; i++) s.abort(`w${i}`);
  return t;
}

interface Track {
  slot: number;
  sentMs: number;
  firstMs?: number;
  endMs?: number;
  chunks: Array<[number, number]>;
}

export function simulateCell(profile: Profile, plan: CellPlan): CellFigures {
  const maxOutput = plan.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const windowMs = (plan.windowS ?? DEFAULT_WINDOW_S) * 1000;
  const rampTimeoutMs = (plan.rampTimeoutS ?? DEFAULT_RAMP_TIMEOUT_S) * 1000;
  const N = plan.concurrency;
  const C = plan.contextTokens;
  const resendGapMs = plan.resendGapMs ?? 0;
  const bs = profile.blockSize;
  // Each cell draws its own (speculative steps, early stops), as cells measured one after another do: one seed
  // for every cell would repeat the same draws at every context and lean a whole row one way.
  const s = new Scheduler(profile, mixSeed(mixSeed(plan.seed ?? 1, C), N), plan.expectedAcceptance ?? false);
  let t = warmUp(s, N, C, plan.cachedSlots ?? 0);
  let nextId = N;
  const tracks = new Map<string, Track>();
  const send = (slot: number, at: number) => {
    const id = `r${nextId++}`;
    s.submit(slotSpec(id, slot, C, bs, s.api.arrivalMs(at, C), maxOutput));
    tracks.set(id, { slot, sentMs: at, chunks: [] });
  };
  const rampStart = t;
  for (let i = 0; i < N; i++) send(i, rampStart);
  const ramp = [...tracks.values()];
  let openMs: number | undefined;
  let maxWaiting = 0;
  const samples: ServerSample[] = [];
  for (;;) {
    const p = s.plan(t);
    if (!p) {
      const next = s.nextArrivalMs();
      if (next === undefined) break;
      t = Math.max(t, next);
      continue;
    }
    if (openMs !== undefined && p.startMs < openMs + windowMs) {
      const waiting = s.waitingAt(p.startMs);
      maxWaiting = Math.max(maxWaiting, waiting);
      // the metrics samples that fall in this step read the queue as the step starts
      while (
        openMs + samples.length * SAMPLE_INTERVAL_MS <= p.endMs &&
        samples.length * SAMPLE_INTERVAL_MS < windowMs
      )
        samples.push({ tMs: samples.length * SAMPLE_INTERVAL_MS, waiting });
    }
    for (const em of s.complete(p)) {
      const tr = tracks.get(em.seq.id)!;
      tr.firstMs ??= p.endMs;
      tr.chunks.push([p.endMs, em.tokens]);
      if (em.finish) {
        tr.endMs = p.endMs;
        send(tr.slot, p.endMs + resendGapMs); // closed loop: the slot's prompt again
      }
    }
    t = p.endMs;
    if (
      openMs === undefined &&
      (ramp.every((r) => r.firstMs !== undefined) || t - rampStart >= rampTimeoutMs)
    )
      openMs = t;
    if (openMs !== undefined && t >= openMs + windowMs) break;
  }
  const window = { openMs: openMs ?? t, closeMs: (openMs ?? t) + windowMs };
  const rampTimedOut = !ramp.every((r) => r.firstMs !== undefined && r.firstMs <= window.openMs);
  const c = s.counters;
  const acceptance = profile.speculative && c.specDrafts > 0 ? 1 + c.specAcceptedTokens / c.specDrafts : null;
  return {
    ...cellFigures([...tracks.values()], window, samples, N, maxWaiting),
    specAcceptanceLength: acceptance,
    rampTimedOut,
  };
}

// The runner's window figures and status rule over the simulated requests: one still running at the close is
// cut there, as the runner aborts it.
function cellFigures(
  tracks: readonly Track[],
  window: { openMs: number; closeMs: number },
  samples: readonly ServerSample[],
  concurrency: number,
  maxWaiting: number,
): Omit<CellFigures, 'specAcceptanceLength' | 'rampTimedOut'> {
  const requests: TimedRequest[] = tracks
    .filter((tr) => tr.sentMs < window.closeMs)
    .map((tr) => {
      const done = tr.endMs !== undefined && tr.endMs < window.closeMs;
      return {
        sentAtMs: tr.sentMs,
        ...(tr.firstMs !== undefined && tr.firstMs < window.closeMs ? { firstTokenAtMs: tr.firstMs } : {}),
        endAtMs: done ? tr.endMs! : window.closeMs,
        chunks: tr.chunks.filter((c) => c[0] < window.closeMs),
        ok: done,
        ...(done ? {} : { errorKind: 'aborted' as const }),
      };
    });
  const f = windowFigures(requests, window);
  const decision = decideStatus({
    concurrency,
    figures: f,
    requests,
    window,
    queueReference: null,
    samples,
    errorLimitHit: false,
  });
  return {
    totalTokensPerS: f.totalTokensPerS ?? 0,
    perRequestTokensPerS: f.perRequestTokensPerS,
    tbtMs: f.tbtMs,
    ttftMs: f.ttftMs,
    ttft: f.ttft,
    chunkGapMs: f.chunkGapMs,
    avgActive: f.avgActive ?? 0,
    completed: f.completed,
    outputTokens: f.outputTokens,
    maxWaiting,
    status: decision.status,
  };
}

export function overCapacity(
  profile: Profile,
  contextTokens: number,
  concurrency: number,
  maxOutput = DEFAULT_MAX_OUTPUT,
): boolean {
  return isOverCapacity(
    contextTokens,
    concurrency,
    maxOutput,
    profile.kvCapacityTokens,
    servingLimits(profile).layout,
  );
}
