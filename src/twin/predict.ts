import { buildPlan } from '../plan/plan.js';
import { contextLabel } from '../format/index.js';
import {
  RESULT_SCHEMA_ID,
  RESULT_SCHEMA_VERSION,
  RunResult as RunResultSchema,
  type DecodeCell,
  type Interval,
  type PrefillPoint,
  type RunResult,
} from '../results/schema.js';
import type { Profile } from '../sim/profile-schema.js';
import { simulateCell, simulatePrefill } from '../sim/what-if.js';
import { emptyCell } from '../results/empty-cell.js';
import { decodeCellFrom } from './sim-result.js';
import { TOOL_NAME, TOOL_VERSION } from '../version.js';
import type { TwinMeta } from './twin.js';

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

export function predict(profile: Profile, meta: TwinMeta, whatIf: WhatIf = {}): RunResult {
  const plan = meta.plan;
  const maxOutput = whatIf.maxOutput ?? plan.maxOutput;
  const windowS = whatIf.windowS ?? plan.windowS;
  let kv = { ...meta.kvCapacity };
  if (whatIf.kvCapacity && 'tokens' in whatIf.kvCapacity)
    kv = { lo: whatIf.kvCapacity.tokens, hi: whatIf.kvCapacity.tokens, source: 'what-if' };
  else if (whatIf.kvCapacity)
    kv = {
      lo: kv.lo * whatIf.kvCapacity.factor,
      hi: kv.hi === null ? null : kv.hi * whatIf.kvCapacity.factor,
      source: `${kv.source} x ${whatIf.kvCapacity.factor}`,
    };
  const kvTokens = Math.round(kv.hi === null ? kv.lo : Math.sqrt(kv.lo * kv.hi));
  const layout = buildPlan({
    maxModelLen: profile.maxModelLen,
    kvCapacityTokens: kvTokens,
    maxOutput,
    contexts: whatIf.contexts ?? plan.contexts,
    prefillContexts: whatIf.prefillContexts ?? whatIf.contexts ?? plan.prefillContexts,
    concurrency: whatIf.concurrency ?? plan.concurrency,
  });
  const seqsKnown = whatIf.maxNumSeqs !== undefined || meta.maxNumSeqs.pinned;
  const seen = meta.maxNumSeqs.value; // pinned, or the most that ran unqueued
  // Unpinned seats: predict the server taking every request (the figure a what-if asks for), and say the
  // other status it may have.
  const seqs = whatIf.maxNumSeqs ?? (seqsKnown ? seen : Math.max(seen, ...layout.concurrency));
  const p: Profile = {
    ...profile,
    kvCapacityTokens: Math.max(kvTokens, profile.maxModelLen),
    maxNumSeqs: seqs,
  };
  const warnings = new Set<string>();
  const measuredCtx = range(meta.ranges.contexts, contextLabel);
  const measuredBatch = range(meta.ranges.batch, String);

  const decode: DecodeCell[] = [];
  for (const cell of layout.cells) {
    if (cell.status === 'Too long') continue;
    const { contextTokens: C, concurrency: N } = cell;
    const need = N * (C + maxOutput);
    const capacityOpen = kv.hi !== null && kv.lo !== kv.hi && need > kv.lo && need <= kv.hi;
    if (cell.status === 'Over capacity') {
      decode.push({
        ...emptyCell(C, N, 'Over capacity'),
        ...(capacityOpen ? { prediction: { otherStatus: 'Valid' } } : {}),
      });
      continue;
    }
    const f = simulateCell(p, { contextTokens: C, concurrency: N, maxOutput, windowS });
    const extrapolates: string[] = [];
    const dc = beyond(C, meta.ranges.contexts);
    const batch = Math.min(N, seqs);
    const db = beyond(batch, meta.ranges.batch);
    if (dc > 0) extrapolates.push(`context ${contextLabel(C)} outside the measured ${measuredCtx}`);
    if (db > 0) extrapolates.push(`${batch} running sequences outside the measured ${measuredBatch}`);
    if (!seqsKnown && N > seen)
      extrapolates.push(
        `concurrency ${N} above ${seen}, the most that ran unqueued: predicted as if the server runs all ${N} at once (its max sequences is unknown)`,
      );
    const ext = PER_DOUBLING * (dc + db);
    const sd = (s: number) => Math.sqrt(s * s + ext * ext);
    let otherStatus: DecodeCell['status'] | undefined;
    if (capacityOpen) otherStatus = 'Over capacity';
    else if (!seqsKnown && N > seen) otherStatus = 'Requests queued';
    for (const e of extrapolates) warnings.add(e);
    decode.push({
      ...decodeCellFrom(C, N, f, windowS),
      intervals: {
        totalTokensPerS: band(f.totalTokensPerS, sd(meta.sigma.total)),
        perRequestTokensPerS: band(f.perRequestTokensPerS, sd(meta.sigma.perRequest)),
        ttftMs: band(f.ttftMs, sd(meta.sigma.ttft)),
        tbtMs: band(f.tbtMs, sd(meta.sigma.perRequest)),
      },
      ...(extrapolates.length || otherStatus
        ? {
            prediction: {
              ...(extrapolates.length ? { extrapolates } : {}),
              ...(otherStatus ? { otherStatus } : {}),
            },
          }
        : {}),
    });
  }

  const prefill: PrefillPoint[] = layout.prefill
    .filter((pt) => pt.contextTokens <= profile.maxModelLen)
    .map((pt) => {
      const r = simulatePrefill(p, pt.contextTokens);
      const d = beyond(pt.contextTokens, meta.ranges.prefill);
      const s = Math.sqrt(meta.sigma.prefill ** 2 + (PER_DOUBLING * d) ** 2);
      const extrapolates =
        d > 0
          ? [
              `prefill ${contextLabel(pt.contextTokens)} outside the measured ${range(meta.ranges.prefill, contextLabel)}`,
            ]
          : [];
      for (const e of extrapolates) warnings.add(e);
      const tps = band(r.tokensPerS, s)!;
      const ttft = band(r.ttftMs, s)!;
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
    });

  const changed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(whatIf)) if (v !== undefined) changed[k] = v;
  const result: RunResult = {
    schema: RESULT_SCHEMA_ID,
    version: RESULT_SCHEMA_VERSION,
    runId: `predicted-${profile.name}`,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    status: 'complete',
    startedAt: new Date().toISOString(),
    decodeTest: 'Fixed duration',
    prefillMode: 'Predicted by a twin',
    target: {
      baseUrl: '',
      model: profile.servedModelName,
      api: 'chat',
      maxModelLen: profile.maxModelLen,
      kvCapacityTokens: kvTokens,
      kvCapacitySource: `twin (${kv.source}${kv.hi !== null && kv.hi !== kv.lo ? `: between ${Math.round(kv.lo)} and ${Math.round(kv.hi)}` : ''})`,
      metricsAvailable: false,
    },
    engine: { name: profile.flavor, detectedBy: 'twin' },
    hardware: { ...profile.hardware, source: 'sim' },
    config: {
      contexts: layout.contexts,
      prefillContexts: layout.prefillContexts,
      concurrency: layout.concurrency,
      maxOutput,
      duration: windowS,
      prefillRepeats: 1,
      ignoreEos: true,
      sampling: {},
      seed: 1,
    },
    prefill,
    decode,
    warnings: [
      `Predicted by the twin ${profile.name} (fitted on ${meta.cells.length} decode cells and ${meta.prefillPoints.length} prefill points of ${meta.fittedFrom.join(', ')}): nothing here was measured; intervals are 95% from the fit's own misses, wider past the measured range.`,
      ...[...warnings].map((w) => `Extrapolates: ${w}.`),
    ],
    predicted: {
      twin: profile.name,
      fittedFrom: meta.fittedFrom,
      ...(Object.keys(changed).length ? { whatIf: changed } : {}),
    },
  };
  return RunResultSchema.parse(result);
}
