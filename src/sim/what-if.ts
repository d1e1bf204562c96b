import { isOverCapacity } from '../plan/capacity.js';
import type { CellStatus, ServerSample } from '../results/schema.js';
import { decideStatus } from '../stats/status.js';
import type { QuantileSet } from '../stats/sorted.js';
import { windowFigures, type TimedRequest } from '../stats/window.js';
import { apiDelayMs } from './curves.js';
import type { Profile } from './profile-schema.js';
import { Scheduler, type RequestSpec } from './scheduler.js';
import { DEFAULT_MAX_OUTPUT } from '../cell-rules.js';

// The method (METHOD.md) applied to the engine model in virtual time, without HTTP: a what-if planner and the
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
}

export interface CellFigures {
  totalTokensPerS: number;
  perRequestTokensPerS: number | null;
  tbtMs: number | null;
  ttftMs: number | null;
  ttft: QuantileSet; // p50 (= ttftMs), p90, p99 over the ramp's and the window's first tokens
  chunkGapMs: QuantileSet; // gaps between a request's chunks in the window (a speculative step's tokens share one)
  specAcceptanceLength: number | null; // 1 + accepted / drafts over the cell, as the server's counters give it
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
  const s = new Scheduler(profile, plan.seed ?? 1);
  let t = 0;
  let nextId = 0;
  // Cache warm-up: every slot once with max_tokens 1.
  for (let i = 0; i < N; i++) s.submit(slotSpec(`w${nextId++}`, i, C, bs, 0, 1));
  for (let p = s.plan(t); p; p = s.plan(t)) {
    s.complete(p);
    t = p.endMs;
  }
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
  const c = s.counters;
  const acceptance = profile.speculative && c.specDrafts > 0 ? 1 + c.specAcceptedTokens / c.specDrafts : null;
  return {
    ...cellFigures([...tracks.values()], window, samples, N, maxWaiting),
    specAcceptanceLength: acceptance,
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
): Omit<CellFigures, 'specAcceptanceLength'> {
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
  return isOverCapacity(contextTokens, concurrency, maxOutput, profile.kvCapacityTokens);
}
