import { z } from 'zod';
import { isMeasured } from '../cell-rules.js';
import type { CellStatus } from '../results/schema.js';
import type { Profile } from '../sim/profile-schema.js';
import { simulatePrefill, type CellFigures } from '../sim/what-if.js';
import { cellLabel, type FitOptions, type FitState, type ParamFit } from './fit.js';
import type { Observations } from './observe.js';
import { FittedMetadata } from './fitted-metadata.js';
import { fitRestartLoss } from './restart-loss.js';
import { fitTtftSide, twinCell, type SimulateAt } from './ttft-fit.js';

// A twin is a sim profile plus what prediction needs to know about its fit: the measured range (beyond it a
// prediction extrapolates), how far the fitted model missed the cells it was fitted on (the intervals), and
// the parameters the data left open (KV capacity bracket, max sequences as a lower bound).

export const TwinMeta = z.object({
  fittedFrom: z.array(z.string()),
  cells: z.array(z.string()),
  prefillPoints: z.array(z.number()),
  ranges: z.object({
    contexts: z.tuple([z.number(), z.number()]),
    batch: z.tuple([z.number(), z.number()]),
    prefill: z.tuple([z.number(), z.number()]),
    // Requests at once in the cells that ran: a TTFT beyond it extrapolates the API server's queue.
    concurrency: z.tuple([z.number(), z.number()]).optional(),
  }),
  // Relative spread (log ratio, one sigma) of predicted vs measured on the fitted cells, floored; TTFT's leaves
  // out pauses (a cell a third or three times the twin's); ttftP90 only where the results carry a p90.
  sigma: z.object({
    total: z.number(),
    perRequest: z.number(),
    ttft: z.number(),
    ttftP90: z.number().optional(),
    prefill: z.number(),
  }),
  // Whether a cell with several requests at once pinned the API server's serial time (src/twin/api-serial.ts).
  apiSerialPinned: z.boolean().default(true),
  kvCapacity: z.object({ lo: z.number(), hi: z.number().nullable(), source: z.string() }),
  maxNumSeqs: z.object({ value: z.number(), pinned: z.boolean() }),
  // Time a restart loses beyond its TTFT, per million prompt tokens (src/twin/restart-loss.ts).
  restartLossMsPerMTokens: z.number().nonnegative().default(0),
  // The fitted results' engine, hardware and launch command, for the predictions to carry; absent in older twins.
  fitted: FittedMetadata.optional(),
  // The matrix the fitted results planned: what `predict` fills in unless told otherwise.
  plan: z.object({
    contexts: z.array(z.number()),
    concurrency: z.array(z.number()),
    prefillContexts: z.array(z.number()),
    maxOutput: z.number(),
    windowS: z.number(),
  }),
});
export type TwinMeta = z.infer<typeof TwinMeta>;

export interface Residual {
  cell: string;
  measuredStatus: CellStatus;
  twinStatus: CellStatus;
  total: [number | null, number | null]; // measured, twin
  perRequest: [number | null, number | null];
  ttft: [number | null, number | null];
  ttftP90: [number | null, number | null];
}

export interface Twin {
  profile: Profile; // profile.twin holds TwinMeta
  meta: TwinMeta;
  params: ParamFit[];
  notes: string[];
  residuals: Residual[];
  prefillResiduals: Array<{ point: string; measured: number; twin: number }>;
}

// Floors: a handful of cells fitted by as many parameters says nothing about the spread of the rest.
const FLOOR = { total: 0.03, perRequest: 0.03, ttft: 0.15, prefill: 0.05 };

// A TTFT a third or three times the twin's is a pause the model does not have (the H200 seed's 11 s cells between
// neighbours at 0.2-1 s): left out of the spread, so one pause does not widen every interval. The rest count at
// their size: the median miss would hide a model that misses a third of its cells (docs/twin.md "TTFT").
const PAUSE = Math.log(3);

function ttftSpread(errs: Array<number | null>, params: number, floor: number): number {
  return spread(
    errs.filter((e) => e !== null && Math.abs(e) <= PAUSE),
    params,
    floor,
  );
}

const logErr = (pair: [number | null, number | null]): number | null =>
  pair[0] && pair[1] && pair[0] > 0 && pair[1] > 0 ? Math.log(pair[1] / pair[0]) : null;

function spread(errs: Array<number | null>, params: number, floor: number): number {
  const e = errs.filter((x): x is number => x !== null);
  if (e.length === 0) return floor;
  const rms = Math.sqrt(e.reduce((s, x) => s + x * x, 0) / e.length);
  const inflate = e.length > params ? Math.sqrt(e.length / (e.length - params)) : 2;
  return Math.max(floor, rms * inflate);
}

export function fitTwin(obs: Observations, plan: TwinMeta['plan'], opts: FitOptions = {}): Twin {
  const ran = obs.decode.filter((d) => d.status !== 'Failed');
  // The fits and the residuals simulate the same cells at the same settings: each setting once.
  const sims = new Map<string, Array<CellFigures | null>>();
  const at: SimulateAt = (key, p, g) => {
    let r = sims.get(key);
    if (!r) sims.set(key, (r = ran.map((d) => twinCell(p, d, g))));
    return r;
  };
  const { fit, profile: p, serialParam, serialPinned } = fitTtftSide(obs, opts, ran, at);
  const simulate = (g: number) => at(`gap ${g}`, p, g);
  const gap = fitRestartLoss(ran, simulate);
  const apiAt = fit.params.findIndex((q) => q.name.startsWith('prefill speed'));
  fit.params.splice(apiAt < 0 ? fit.params.length : apiAt, 0, serialParam);
  fit.params.push(gap.param);
  const atGap = simulate(gap.msPerMTokens);
  const residuals: Residual[] = ran.map((d, i) => {
    const sim = atGap[i] ?? null;
    return {
      cell: cellLabel(d),
      measuredStatus: d.status,
      twinStatus: sim ? sim.status : 'Over capacity',
      total: [d.totalTokensPerS, sim?.totalTokensPerS ?? null],
      perRequest: [d.perRequestTokensPerS, sim?.perRequestTokensPerS ?? null],
      ttft: [d.ttftMs, sim?.ttftMs ?? null],
      ttftP90: [d.ttftP90Ms, sim?.ttft.p90 ?? null],
    };
  });
  const prefillResiduals = obs.prefill.map((pt) => ({
    point: `prefill ${cellLabel({ contextTokens: pt.contextTokens, concurrency: 1 }).replace(' × 1', '')}`,
    measured: pt.tokensPerS,
    twin: simulatePrefill(p, pt.promptTokens).tokensPerS,
  }));
  const meta = twinMeta(obs, fit, { residuals, prefillResiduals, plan, serialPinned, gap: gap.msPerMTokens });
  return {
    profile: { ...p, twin: meta },
    meta,
    params: fit.params,
    notes: fit.notes,
    residuals,
    prefillResiduals,
  };
}

interface MetaInputs {
  residuals: Residual[];
  prefillResiduals: Twin['prefillResiduals'];
  plan: TwinMeta['plan'];
  serialPinned: boolean;
  gap: number;
}

function twinMeta(obs: Observations, fit: FitState, m: MetaInputs): TwinMeta {
  const valid = m.residuals.filter((r) => r.measuredStatus === 'Valid' && r.twinStatus === 'Valid');
  const decodeParams = fit.params.filter((q) => q.name.startsWith('decode')).length;
  const ttftParams = 2 + (m.serialPinned ? 2 : 0); // API time, and its serial part
  const p90 = valid.map((r) => logErr(r.ttftP90)).filter((e) => e !== null);
  const ran = obs.decode.filter((d) => isMeasured(d.status));
  const ns = ran.map((d) => d.concurrency);
  return {
    fittedFrom: obs.sources,
    cells: obs.decode.map(cellLabel),
    prefillPoints: obs.prefill.map((x) => x.contextTokens),
    ranges: { ...fit.ranges, ...(ns.length ? { concurrency: [Math.min(...ns), Math.max(...ns)] } : {}) },
    sigma: {
      total: spread(
        valid.map((r) => logErr(r.total)),
        decodeParams,
        FLOOR.total,
      ),
      perRequest: spread(
        valid.map((r) => logErr(r.perRequest)),
        decodeParams,
        FLOOR.perRequest,
      ),
      ttft: ttftSpread(
        valid.map((r) => logErr(r.ttft)),
        ttftParams,
        FLOOR.ttft,
      ),
      ...(p90.length ? { ttftP90: ttftSpread(p90, ttftParams, FLOOR.ttft) } : {}),
      prefill: spread(
        m.prefillResiduals.map((r) => logErr([r.measured, r.twin])),
        m.prefillResiduals.length,
        FLOOR.prefill,
      ),
    },
    apiSerialPinned: m.serialPinned,
    kvCapacity: fit.kvCapacity,
    maxNumSeqs: fit.maxNumSeqs,
    restartLossMsPerMTokens: m.gap,
    ...(obs.metadata ? { fitted: obs.metadata } : {}),
    plan: m.plan,
  };
}
