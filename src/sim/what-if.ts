import { apiDelayMs } from './curves.js';
import type { Profile } from './profile-schema.js';
import { Scheduler, type RequestSpec } from './scheduler.js';

// The method (METHOD.md) applied to the engine model in virtual time, without HTTP: a what-if planner and the
// model half of calibration (bench/calibrate.ts runs the real client against the HTTP sim for the other half).

export interface CellPlan {
  contextTokens: number;
  concurrency: number;
  maxOutput?: number; // default 4096
  windowS?: number; // default 30
  rampTimeoutS?: number; // default 120
  seed?: number;
}

export interface CellFigures {
  totalTokensPerS: number;
  perRequestTokensPerS: number | null;
  tbtMs: number | null;
  ttftMs: number | null;
  avgActive: number;
  completed: number;
  outputTokens: number;
  maxWaiting: number;
  status: 'Valid' | 'Requests queued';
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

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
  const maxOutput = plan.maxOutput ?? 4096;
  const windowMs = (plan.windowS ?? 30) * 1000;
  const rampTimeoutMs = (plan.rampTimeoutS ?? 120) * 1000;
  const N = plan.concurrency;
  const C = plan.contextTokens;
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
    s.submit(slotSpec(id, slot, C, bs, at + apiDelayMs(profile, C), maxOutput));
    tracks.set(id, { slot, sentMs: at, chunks: [] });
  };
  const rampStart = t;
  for (let i = 0; i < N; i++) send(i, rampStart);
  const ramp = [...tracks.values()];
  let openMs: number | undefined;
  let maxWaiting = 0;
  for (;;) {
    const p = s.plan(t);
    if (!p) {
      const next = s.nextArrivalMs();
      if (next === undefined) break;
      t = Math.max(t, next);
      continue;
    }
    if (openMs !== undefined && p.startMs < openMs + windowMs)
      maxWaiting = Math.max(maxWaiting, s.waitingAt(p.startMs));
    for (const em of s.complete(p)) {
      const tr = tracks.get(em.seq.id)!;
      tr.firstMs ??= p.endMs;
      tr.chunks.push([p.endMs, em.tokens]);
      if (em.finish) {
        tr.endMs = p.endMs;
        send(tr.slot, p.endMs); // closed loop: the slot's prompt again, at once
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
  const open = openMs ?? t;
  const close = open + windowMs;
  let tokens = 0;
  let completed = 0;
  let activeMs = 0;
  const perReq: number[] = [];
  const tbts: number[] = [];
  const ttfts: number[] = [];
  for (const tr of tracks.values()) {
    if (tr.firstMs !== undefined && tr.sentMs < close) ttfts.push(tr.firstMs - tr.sentMs);
    const inWin = tr.chunks.filter((c) => c[0] >= open && c[0] <= close);
    for (const c of inWin) tokens += c[1];
    if (tr.endMs !== undefined && tr.endMs >= open && tr.endMs <= close) completed++;
    if (tr.firstMs !== undefined) {
      const a = Math.max(open, tr.firstMs);
      const b = Math.min(close, tr.endMs ?? close);
      if (b > a) activeMs += b - a;
    }
    if (inWin.length >= 2) {
      const span = inWin[inWin.length - 1]![0] - inWin[0]![0];
      const after = inWin.slice(1).reduce((x, c) => x + c[1], 0);
      const all = after + inWin[0]![1];
      if (span > 0) {
        perReq.push((after / span) * 1000);
        tbts.push(span / (all - 1));
      }
    }
  }
  return {
    totalTokensPerS: (tokens / windowMs) * 1000,
    perRequestTokensPerS: median(perReq),
    tbtMs: median(tbts),
    ttftMs: median(ttfts),
    avgActive: activeMs / windowMs,
    completed,
    outputTokens: tokens,
    maxWaiting,
    status: maxWaiting > 0 ? 'Requests queued' : 'Valid',
  };
}

export function overCapacity(
  profile: Profile,
  contextTokens: number,
  concurrency: number,
  maxOutput = 4096,
): boolean {
  return concurrency * (contextTokens + maxOutput) > profile.kvCapacityTokens;
}
