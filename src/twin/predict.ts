import { buildPlan } from '../plan/plan.js';
import { servingLimits } from '../sim/serving-limits.js';
import { resultHeader } from '../results/header.js';
import { contextLabel, fmtInt } from '../format/index.js';
import {
  RunResult as RunResultSchema,
  type DecodeCell,
  type Interval,
  type PrefillPoint,
  type RunResult,
} from '../results/schema.js';
import type { Profile } from '../sim/profile-schema.js';
import { simulateCell, simulatePrefill, type CellFigures, type CellPlan } from '../sim/what-if.js';
import { emptyCell } from '../results/empty-cell.js';
import { decodeCellFrom, previousLevel } from './sim-result.js';
import type { TwinMeta } from './twin.js';
import { restartGapMs } from './restart-loss.js';
import { kvDemandTokens } from '../cell-rules.js';

// The whole matrix from a twin: the plan's capacity rule decides Over capacity, the what-if engine (the method
// on the engine model in virtual time) gives every other figure and status; each figure gets an interval from
// how well the twin matched its own measured cells, widened for every doubling beyond the measured range.

export interface WhatIf {
  contexts?: number[];
  prefillContexts?: number[];
  concurrency?: number[];
  maxOutput?: number;
  windowS?: number;
  kvCapacity?: { tokens: number } | { factor: number };
  maxNumSeqs?: number;
}

const Z95 = 1.96;
const PER_DOUBLING = 0.05; // extra relative spread per doubling past the measured range
const UNPINNED_SERIAL = 0.35; // a wave's TTFT with no serial time fitted: could be twice or half
const NO_P90 = 1.5; // a p90 the fit never saw: half as wide again as the median's

function beyond(x: number, [lo, hi]: readonly [number, number]): number {
  if (x > hi) return Math.log2(x / hi);
  if (x < lo) return Math.log2(lo / x);
  return 0;
}

function band(v: number | null, sigma: number): Interval | null {
  if (v === null) return null;
  const f = Math.exp(Z95 * sigma);
  return { lo: v / f, hi: v * f };
}

const range = ([lo, hi]: readonly [number, number], fmt: (v: number) => string) =>
  lo === hi ? fmt(lo) : `${fmt(lo)}–${fmt(hi)}`;

type KvRange = TwinMeta['kvCapacity'];

/** Everything a predicted cell needs: the what-if applied to the twin, and the plan it gives. */
interface Setup {
  profile: Profile; // the twin's profile with the what-if's KV cache and max sequences
  meta: TwinMeta;
  kv: KvRange;
  kvTokens: number;
  layout: ReturnType<typeof buildPlan>;
  maxOutput: number;
  windowS: number;
  seqsKnown: boolean;
  seen: number; // pinned max sequences, or the most that ran unqueued
  seqs: number;
  warnings: Set<string>;
  expected: Array<Record<ExpectedKey, number | null>>; // per predicted Valid cell, the share its spread keeps within
}

type ExpectedKey = 'totalTokensPerS' | 'perRequestTokensPerS' | 'ttftMs';

export function predict(profile: Profile, meta: TwinMeta, whatIf: WhatIf = {}): RunResult {
  const setup = applyWhatIf(profile, meta, whatIf);
  // As a run would fail them, unsent: say which contexts the server's max model length leaves out.
  const tooLong = new Map<number, string>(); // context -> the plan's reason
  for (const cell of setup.layout.cells)
    if (cell.status === 'Too long') tooLong.set(cell.contextTokens, cell.reason ?? 'too long');
  const decode = setup.layout.cells
    .filter((cell) => cell.status !== 'Too long')
    .map((cell) => predictDecodeCell(setup, cell));
  const prefill = setup.layout.prefill
    .filter((pt) => pt.contextTokens <= profile.maxModelLen)
    .map((pt) => predictPrefillPoint(setup, pt));
  const notes = [...tooLong].map(([c, reason]) => `${contextLabel(c)} not predicted: ${reason}.`);
  return RunResultSchema.parse(predictedResult(profile, setup, whatIf, prefill, decode, notes));
}

function whatIfKv(kvCapacity: KvRange, whatIf: WhatIf): KvRange {
  if (whatIf.kvCapacity && 'tokens' in whatIf.kvCapacity)
    return { lo: whatIf.kvCapacity.tokens, hi: whatIf.kvCapacity.tokens, source: 'what-if' };
  if (whatIf.kvCapacity)
    return {
      lo: kvCapacity.lo * whatIf.kvCapacity.factor,
      hi: kvCapacity.hi === null ? null : kvCapacity.hi * whatIf.kvCapacity.factor,
      source: `${kvCapacity.source} x ${whatIf.kvCapacity.factor}`,
    };
  return { ...kvCapacity };
}

function applyWhatIf(profile: Profile, meta: TwinMeta, whatIf: WhatIf): Setup {
  const plan = meta.plan;
  const maxOutput = whatIf.maxOutput ?? plan.maxOutput;
  const kv = whatIfKv(meta.kvCapacity, whatIf);
  const kvTokens = Math.round(kv.hi === null ? kv.lo : Math.sqrt(kv.lo * kv.hi));
  const kvLayout = servingLimits(profile).layout; // split slots queue what a pool would not run
  const layout = buildPlan({
    maxModelLen: profile.maxModelLen,
    kvCapacityTokens: kvTokens,
    ...(kvLayout ? { kvLayout } : {}),
    maxOutput,
    contexts: whatIf.contexts ?? plan.contexts,
    prefillContexts: whatIf.prefillContexts ?? whatIf.contexts ?? plan.prefillContexts,
    concurrency: whatIf.concurrency ?? plan.concurrency,
  });
  const seqsKnown = whatIf.maxNumSeqs !== undefined || meta.maxNumSeqs.pinned;
  const seen = meta.maxNumSeqs.value;
  // Unpinned seats: predict the server taking every request (the figure a what-if asks for), and say the
  // other status it may have.
  const seqs = whatIf.maxNumSeqs ?? (seqsKnown ? seen : Math.max(seen, ...layout.concurrency));
  return {
    profile: { ...profile, kvCapacityTokens: Math.max(kvTokens, profile.maxModelLen), maxNumSeqs: seqs },
    meta,
    kv,
    kvTokens,
    layout,
    maxOutput,
    windowS: whatIf.windowS ?? plan.windowS,
    seqsKnown,
    seen,
    seqs,
    warnings: new Set<string>(),
    expected: [],
  };
}

function predictDecodeCell(s: Setup, cell: Setup['layout']['cells'][number]): DecodeCell {
  const { meta, kv, seen, seqsKnown } = s;
  const { contextTokens: C, concurrency: N } = cell;
  const need = kvDemandTokens(C, N, s.maxOutput);
  const capacityOpen = kv.hi !== null && kv.lo !== kv.hi && need > kv.lo && need <= kv.hi;
  if (cell.status === 'Over capacity') {
    return {
      ...emptyCell(C, N, 'Over capacity'),
      ...(capacityOpen ? { prediction: { otherStatus: 'Valid' } } : {}),
    };
  }
  const plan = {
    contextTokens: C,
    concurrency: N,
    cachedSlots: previousLevel(s.layout.cells, cell),
    maxOutput: s.maxOutput,
    windowS: s.windowS,
    resendGapMs: restartGapMs(meta.restartLossMsPerMTokens, C),
  };
  const f = withExpectedRates(simulateCell(s.profile, plan), s.profile, plan);
  const batch = Math.min(N, s.seqs);
  const dc = beyond(C, meta.ranges.contexts);
  const db = beyond(batch, meta.ranges.batch);
  const extrapolates = decodeExtrapolations(s, C, N, batch, dc > 0, db > 0);
  const sd = (v: number, doublings = dc + db) => Math.hypot(v, PER_DOUBLING * doublings);
  const ttft = ttftSpread(s, N, dc + db);
  extrapolates.push(...ttft.reasons);
  const edge = windowEdge(s.profile, plan, f, Z95 * sd(meta.sigma.perRequest));
  if (edge) extrapolates.push(edge.reason);
  let otherStatus: DecodeCell['status'] | undefined;
  if (capacityOpen) otherStatus = 'Over capacity';
  else if (!seqsKnown && N > seen) otherStatus = 'Requests queued';
  for (const e of extrapolates) s.warnings.add(e);
  const figures = decodeCellFrom(C, N, edge ? { ...f, ttftMs: edge.p50.mid, ttft: edge.ttft } : f, s.windowS);
  const p50Sigma = edge ? Math.hypot(ttft.p50, edge.p50.halfSpan) : ttft.p50;
  const intervals = {
    totalTokensPerS: band(f.totalTokensPerS, sd(meta.sigma.total)),
    perRequestTokensPerS: band(f.perRequestTokensPerS, sd(meta.sigma.perRequest)),
    ttftMs: edge ? spanBand(edge.p50, ttft.p50) : band(f.ttftMs, ttft.p50),
    tbtMs: band(f.tbtMs, sd(meta.sigma.perRequest)),
  };
  if (f.status === 'Valid')
    s.expected.push(expectedWithin(intervals, sd(meta.sigma.total), sd(meta.sigma.perRequest), p50Sigma));
  const p90 = edge ? spanBand(edge.p90, ttft.p90) : band(f.ttft.p90, ttft.p90);
  return {
    ...figures,
    intervals,
    ...(extrapolates.length || otherStatus || p90
      ? {
          prediction: {
            ...(extrapolates.length ? { extrapolates } : {}),
            ...(otherStatus ? { otherStatus } : {}),
            ...(p90 ? { ttftP90Ms: p90 } : {}),
          },
        }
      : {}),
  };
}

// A twin predicts the expected tok/s: one window's speculative draws move a cell's rates 2-3% either way, as they
// move the measurement's, and two independent draws would double that scatter (docs/twin.md "Speculative draws").
// The draws stay for everything else: requests that decode alike finish together and re-send in a burst, which
// no server's requests do, so TTFT, chunk gaps and statuses come from the run with draws.
function withExpectedRates(f: CellFigures, p: Profile, plan: CellPlan): CellFigures {
  if (!p.speculative) return f;
  const e = simulateCell(p, { ...plan, expectedAcceptance: true });
  return {
    ...f,
    totalTokensPerS: e.totalTokensPerS,
    perRequestTokensPerS: e.perRequestTokensPerS,
    tbtMs: e.tbtMs,
    outputTokens: e.outputTokens,
    specAcceptanceLength: e.specAcceptanceLength,
  };
}

// Where a cell's requests end near the window's close, whether they complete and re-send inside it is within the
// twin's own uncertainty on the decode rate, and it sets the TTFT: completed requests re-send one at a time and
// meet no queue, which pulls the median from the first wave's down to one request's (docs/twin.md "TTFT", the
// H200 seed at N = 4). The twin then simulates the cell at the two ends of its per-request rate interval; where
// the median TTFT differs between them it predicts the middle (geometric) of the three, and intervals (median and
// p90) that span them.
const EDGE_MIN_RATIO = 1.1; // TTFTs closer than this are one regime: the rate moves them, not the completions

interface Span {
  lo: number;
  hi: number;
  mid: number; // geometric middle of lo and hi
  halfSpan: number; // ln(hi / lo) / 2: the log miss of the middle when the measurement is at either end
}

function spanOf(xs: Array<number | null>): Span | null {
  const v = xs.filter((x): x is number => x !== null && x > 0);
  if (v.length === 0) return null;
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return { lo, hi, mid: Math.sqrt(lo * hi), halfSpan: Math.log(hi / lo) / 2 };
}

function spanBand(x: Span | null, sigma: number): Interval | null {
  if (!x) return null;
  const f = Math.exp(Z95 * sigma);
  return { lo: x.lo / f, hi: x.hi * f };
}

function windowEdge(p: Profile, plan: CellPlan, f: CellFigures, z: number) {
  const rate = f.perRequestTokensPerS;
  if (f.status !== 'Valid' || !rate || !f.ttftMs) return null;
  const window = plan.windowS ?? 30;
  const lasts = (plan.maxOutput ?? 0) / rate; // s from a request's first token to its last
  const openS = (f.ttft.p99 ?? f.ttftMs) / 1000; // the window opens once the slowest of the wave has a token
  if (lasts < window * Math.exp(-z) || lasts > (window + openS) * Math.exp(z)) return null;
  const scaled = (k: number): Profile => ({
    ...p,
    decodeStepMs: p.decodeStepMs.map(([b, ms]) => [b, ms * k]),
    decodeContextSlopeMsPerMTokens: p.decodeContextSlopeMsPerMTokens * k,
  });
  const runs = [f, simulateCell(scaled(Math.exp(-z)), plan), simulateCell(scaled(Math.exp(z)), plan)];
  const p50 = spanOf(runs.map((r) => r.ttftMs));
  const p90 = spanOf(runs.map((r) => r.ttft.p90));
  if (!p50 || p50.hi / p50.lo < EDGE_MIN_RATIO) return null;
  return {
    p50,
    p90,
    // The p90 stays the wave's tail whether or not the requests re-send: the twin's own, within its span.
    ttft: { ...f.ttft, p50: p50.mid, ...(f.ttft.p90 !== null ? { p90: Math.max(f.ttft.p90, p50.mid) } : {}) },
    // One wording per what-if (no figures of the cell): the result's warnings list each reason once.
    reason: `TTFT where requests end near the window's close (${fmtInt(plan.maxOutput ?? 0)} tokens in about ${window} s): whether they complete and re-send inside it is within the twin's decode-rate interval, so the median is predicted between the first wave's and one request's, its interval spanning both`,
  };
}

// TTFT's spread at one cell: the fit's own, wider past the measured contexts and batches, past the waves it saw
// (requests at once beyond the measured ones extrapolate the API server's queue), where no cell pinned the serial
// time, and for the p90 where the fitted results had none. Each widening names its reason.
function ttftSpread(s: Setup, N: number, doublings: number) {
  const { meta } = s;
  const reasons: string[] = [];
  const span = meta.ranges.concurrency;
  const dn = span ? beyond(N, span) : 0;
  if (dn > 0 && span)
    reasons.push(
      `TTFT of ${N} requests at once outside the measured ${range(span, String)}: the API server's queue extrapolated`,
    );
  let unpinned = 0;
  if (!meta.apiSerialPinned && N >= 2) {
    unpinned = UNPINNED_SERIAL;
    reasons.push(
      "TTFT with several requests at once: no fitted Valid cell had them, so the API server's serial time is not pinned",
    );
  }
  const p50 = Math.hypot(meta.sigma.ttft, PER_DOUBLING * (doublings + dn), unpinned);
  let p90 = meta.sigma.ttftP90;
  if (p90 === undefined) {
    p90 = meta.sigma.ttft * NO_P90;
    reasons.push('TTFT p90 not fitted: the fitted results carry one TTFT per cell');
  }
  return { p50, p90: Math.hypot(p90, PER_DOUBLING * (doublings + dn), unpinned), reasons };
}

// The share of cells a log-normal miss of this spread keeps within the tolerance: Φ(ln(1 + t) / σ) − Φ(ln(1 − t) / σ).
function withinShare(sigma: number, tolerance: number): number {
  return normalCdf(Math.log(1 + tolerance) / sigma) - normalCdf(Math.log(1 - tolerance) / sigma);
}

function expectedWithin(i: DecodeCell['intervals'], total: number, perRequest: number, ttft: number) {
  return {
    totalTokensPerS: i?.totalTokensPerS ? withinShare(total, 0.1) : null,
    perRequestTokensPerS: i?.perRequestTokensPerS ? withinShare(perRequest, 0.1) : null,
    ttftMs: i?.ttftMs ? withinShare(ttft, 0.25) : null,
  };
}

// Abramowitz and Stegun 7.1.26 (error below 1.5e-7): enough for a share printed in whole percent.
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

function decodeExtrapolations(
  s: Setup,
  C: number,
  N: number,
  batch: number,
  contextBeyond: boolean,
  batchBeyond: boolean,
): string[] {
  const out: string[] = [];
  if (contextBeyond)
    out.push(
      `context ${contextLabel(C)} outside the measured ${range(s.meta.ranges.contexts, contextLabel)}`,
    );
  if (batchBeyond)
    out.push(`${batch} running sequences outside the measured ${range(s.meta.ranges.batch, String)}`);
  if (!s.seqsKnown && N > s.seen)
    out.push(
      `concurrency ${N} above ${s.seen}, the most that ran unqueued: predicted as if the server runs all ${N} at once (its max sequences is unknown)`,
    );
  return out;
}

function predictPrefillPoint(s: Setup, pt: Setup['layout']['prefill'][number]): PrefillPoint {
  const { meta } = s;
  const r = simulatePrefill(s.profile, pt.contextTokens);
  const d = beyond(pt.contextTokens, meta.ranges.prefill);
  const sigma = Math.sqrt(meta.sigma.prefill ** 2 + (PER_DOUBLING * d) ** 2);
  const extrapolates =
    d > 0
      ? [
          `prefill ${contextLabel(pt.contextTokens)} outside the measured ${range(meta.ranges.prefill, contextLabel)}`,
        ]
      : [];
  for (const e of extrapolates) s.warnings.add(e);
  const tps = band(r.tokensPerS, sigma)!;
  const ttft = band(r.ttftMs, sigma)!;
  return {
    contextTokens: pt.contextTokens,
    status: 'Valid',
    promptTokens: pt.contextTokens,
    ttftMs: r.ttftMs,
    tokensPerS: r.tokensPerS,
    completed: 1,
    repeats: [{ promptTokens: pt.contextTokens, ttftMs: r.ttftMs, tokensPerS: r.tokensPerS }],
    decodeContext: pt.decodeContext,
    prediction: { tokensPerS: tps, ttftMs: ttft, ...(extrapolates.length ? { extrapolates } : {}) },
  };
}

function predictedResult(
  profile: Profile,
  s: Setup,
  whatIf: WhatIf,
  prefill: PrefillPoint[],
  decode: DecodeCell[],
  notes: string[],
): RunResult {
  const { kv, layout, meta } = s;
  const expected = meanExpected(s.expected);
  const changed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(whatIf)) if (v !== undefined) changed[k] = v;
  // The fitted results' server, as they named it (a twin before fitted metadata: the profile's few fields). A
  // what-if that changes the server's own settings is no longer the recorded launch command.
  const fitted = meta.fitted;
  const serverChanged = whatIf.kvCapacity !== undefined || whatIf.maxNumSeqs !== undefined;
  return {
    ...resultHeader({
      runId: `predicted-${profile.name}`,
      status: 'complete',
      startedAt: new Date().toISOString(),
      prefillMode: 'Predicted by a twin',
    }),
    target: {
      baseUrl: '',
      model: profile.servedModelName,
      ...(fitted?.revision ? { revision: fitted.revision } : {}),
      api: 'chat',
      maxModelLen: profile.maxModelLen,
      kvCapacityTokens: s.kvTokens,
      kvCapacitySource: `twin, ${kv.source}${kv.hi !== null && kv.hi !== kv.lo ? `: between ${fmtInt(kv.lo)} and ${fmtInt(kv.hi)}` : ''}`,
      metricsAvailable: false,
    },
    engine: { ...fitted?.engine, name: fitted?.engine.name ?? profile.flavor, detectedBy: 'twin' },
    hardware: fitted ? { ...profile.hardware, ...fitted.hardware } : { ...profile.hardware, source: 'sim' },
    ...(fitted?.launchCommand && !serverChanged ? { launchCommand: fitted.launchCommand } : {}),
    config: {
      contexts: layout.contexts,
      prefillContexts: layout.prefillContexts,
      concurrency: layout.concurrency,
      maxOutput: s.maxOutput,
      duration: s.windowS,
      prefillRepeats: 1,
      ignoreEos: true,
      sampling: {},
      seed: 1,
    },
    prefill,
    decode,
    warnings: [
      `Predicted by the twin ${profile.name} (fitted on ${meta.cells.length} decode cells and ${meta.prefillPoints.length} prefill points of ${meta.fittedFrom.join(', ')}): nothing here was measured; intervals are 95% from the fit's own misses, wider past the measured range.`,
      ...(expected ? [expectedLine(expected)] : []),
      ...[...s.warnings].map((w) => `Extrapolates: ${w}.`),
      ...notes,
    ],
    predicted: {
      twin: profile.name,
      fittedFrom: meta.fittedFrom,
      ...(Object.keys(changed).length ? { whatIf: changed } : {}),
      ...(expected ? { expectedWithin: expected } : {}),
    },
  };
}

/** Over the predicted Valid cells, the mean share each figure's spread keeps within its tolerance. */
function meanExpected(rows: Setup['expected']): Record<ExpectedKey, number> | undefined {
  if (rows.length === 0) return undefined;
  const mean = (k: ExpectedKey) => {
    const v = rows.map((r) => r[k]).filter((x): x is number => x !== null);
    return v.length ? Math.round((1000 * v.reduce((a, b) => a + b, 0)) / v.length) / 1000 : 0;
  };
  return {
    totalTokensPerS: mean('totalTokensPerS'),
    perRequestTokensPerS: mean('perRequestTokensPerS'),
    ttftMs: mean('ttftMs'),
  };
}

function expectedLine(e: Record<ExpectedKey, number>): string {
  const pc = (v: number) => `${Math.round(100 * v)}%`;
  return (
    `Expected from the fit's own misses (measured on the cells it was fitted on, so at best): total tok/s within 10% ` +
    `of a measurement on ${pc(e.totalTokensPerS)} of the Valid cells, per request on ${pc(e.perRequestTokensPerS)}, ` +
    `TTFT within 25% on ${pc(e.ttftMs)}.`
  );
}
