import { z } from 'zod';
import type { CellStatus } from '../results/schema.js';
import type { Profile } from '../sim/profile-schema.js';
import { simulatePrefill, type CellFigures } from '../sim/what-if.js';
import { cellLabel, type FitOptions, type ParamFit } from './fit.js';
import type { Observations } from './observe.js';
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
  }),
  // Relative spread (log ratio, one sigma) of predicted vs measured on the fitted cells, floored.
  sigma: z.object({ total: z.number(), perRequest: z.number(), ttft: z.number(), prefill: z.number() }),
  kvCapacity: z.object({ lo: z.number(), hi: z.number().nullable(), source: z.string() }),
  maxNumSeqs: z.object({ value: z.number(), pinned: z.boolean() }),
  // Time a restart loses beyond its TTFT, per million prompt tokens (src/twin/restart-loss.ts).
  restartLossMsPerMTokens: z.number().nonnegative().default(0),
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
  const { fit, profile: p, serialParam } = fitTtftSide(obs, opts, ran, at);
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
    };
  });
  const prefillResiduals = obs.prefill.map((pt) => ({
    point: `prefill ${cellLabel({ contextTokens: pt.contextTokens, concurrency: 1 }).replace(' × 1', '')}`,
    measured: pt.tokensPerS,
    twin: simulatePrefill(p, pt.promptTokens).tokensPerS,
  }));
  const valid = residuals.filter((r) => r.measuredStatus === 'Valid' && r.twinStatus === 'Valid');
  const decodeParams = fit.params.filter((q) => q.name.startsWith('decode')).length;
  const meta: TwinMeta = {
    fittedFrom: obs.sources,
    cells: obs.decode.map(cellLabel),
    prefillPoints: obs.prefill.map((x) => x.contextTokens),
    ranges: fit.ranges,
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
      ttft: spread(
        valid.map((r) => logErr(r.ttft)),
        2,
        FLOOR.ttft,
      ),
      prefill: spread(
        prefillResiduals.map((r) => logErr([r.measured, r.twin])),
        prefillResiduals.length,
        FLOOR.prefill,
      ),
    },
    kvCapacity: fit.kvCapacity,
    maxNumSeqs: fit.maxNumSeqs,
    restartLossMsPerMTokens: gap.msPerMTokens,
    plan,
  };
  return {
    profile: { ...p, twin: meta },
    meta,
    params: fit.params,
    notes: fit.notes,
    residuals,
    prefillResiduals,
  };
}
