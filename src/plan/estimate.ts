import { CONNECT_PROMPT_TOKENS, runContexts, type Plan } from './plan.js';
import type { PlannedRow } from './levels.js';
import { priorPrefillModel, prefillSeconds, type PrefillModel } from './prefill-model.js';
import { cellKey } from '../cell-rules.js';
import { checkOptions, keysOf } from '../option-keys.js';

export interface EstimateInput {
  duration: number; // window length
  prefillRepeats: number; // cold requests per prefill point, as the run sends them
  repeats?: number; // windows per decode cell (--repeats), each with its ramp and settle; default 1
  cellOverheadS?: number; // ramp from cached prompts, close and settle per cell; default 0.3 s
  requestOverheadS?: number; // per request outside prefill (connection, API server); default 0.02 s
  engine?: string; // picks the prefill prior
  prefill?: PrefillModel; // measured or fitted; default the engine's prior
}

// One thing the run does, in the run's order, with how long it should take.
export interface EstimateStep {
  kind: 'connect' | 'prefill' | 'cell' | 'level';
  contextTokens: number; // a level's: its row's context, else 0
  concurrency?: number;
  key?: string; // a level's key (levelKey); a search's window: "<row>@search", one step each
  prompts: number; // cold prompts of contextTokens prefilled in this step (repeats, or new warm-up slots)
  fixedS: number; // what does not depend on prefill speed: windows (R per cell), ramps, settles, request overheads
  estimateS: number;
}

export interface Estimate {
  totalS: number;
  prefillS: number; // cold prefills: repeats, and every slot prompt's first warm-up
  decodeS: number; // windows + ramps + settles of the cells that run
  cellsToRun: number;
  steps: EstimateStep[];
}

export const DEFAULT_CELL_OVERHEAD_S = 0.3;

// The run's steps: connect, then per context (ascending) its cold prefill point and its cells. A cell's warm-up
// prefills only the slots no earlier cell of that context has (slot 1 is the prefill point's prompt).
export function planSteps(plan: Plan, input: EstimateInput): Omit<EstimateStep, 'estimateS'>[] {
  const overhead = input.cellOverheadS ?? DEFAULT_CELL_OVERHEAD_S;
  const req = input.requestOverheadS ?? 0.02;
  const windows = input.repeats ?? 1;
  const steps: Omit<EstimateStep, 'estimateS'>[] = [
    { kind: 'connect', contextTokens: CONNECT_PROMPT_TOKENS, prompts: 1, fixedS: req },
  ];
  const rowSteps = (r: PlannedRow) => {
    for (const l of r.levels)
      steps.push({
        kind: 'level',
        contextTokens: r.contextTokens ?? 0,
        key: l.key,
        prompts: 0,
        fixedS: l.scheduleS + overhead,
      });
    const search = r.search;
    for (let i = 0; search && i < search.windows; i++)
      steps.push({
        kind: 'level',
        contextTokens: r.contextTokens ?? 0,
        key: searchStepKey(r.row),
        prompts: 0,
        fixedS: search.scheduleS + overhead,
      });
  };
  const rows = plan.levels ?? [];
  for (const c of runContexts(plan)) {
    const pp = plan.prefill.find((p) => p.contextTokens === c && p.status === 'run');
    if (pp)
      steps.push({
        kind: 'prefill',
        contextTokens: c,
        prompts: input.prefillRepeats,
        fixedS: input.prefillRepeats * req,
      });
    let slots = pp ? 1 : 0;
    for (const cell of plan.cells.filter((x) => x.contextTokens === c)) {
      const runs = cell.status === 'run';
      const fresh = runs ? Math.max(0, cell.concurrency - slots) : 0;
      if (runs) slots = Math.max(slots, cell.concurrency);
      steps.push({
        kind: 'cell',
        contextTokens: c,
        concurrency: cell.concurrency,
        prompts: fresh,
        fixedS: runs ? windows * (input.duration + overhead + req) : 0,
      });
    }
    for (const r of rows) if (r.contextTokens === c) rowSteps(r);
  }
  for (const r of rows) if (r.contextTokens === undefined) rowSteps(r);
  return steps;
}

// A window of a rate search: its rate is known only when it starts, so each counts as the row's next search step.
export const searchStepKey = (row: string): string => `${row}@search`;

export const stepSeconds = (s: Omit<EstimateStep, 'estimateS'>, m: PrefillModel): number =>
  s.fixedS + s.prompts * prefillSeconds(m, s.contextTokens);

// The estimate `plan` prints and the live ETA starts from (docs/cli.md "How the estimate is made").
const KEYS = keysOf<EstimateInput>({
  duration: true,
  prefillRepeats: true,
  repeats: true,
  cellOverheadS: true,
  requestOverheadS: true,
  engine: true,
  prefill: true,
});

export function estimateDuration(plan: Plan, input: EstimateInput): Estimate {
  checkOptions('estimateDuration', input, KEYS, {
    durationS: 'duration',
    rampS: 'cellOverheadS (ramp, close and settle of a cell together)',
    settleS: 'cellOverheadS (ramp, close and settle of a cell together)',
    prefillTokensPerS: 'prefill, seconds per prompt as { a, b }: a × tokens + b × tokens²',
  });
  const model = input.prefill ?? priorPrefillModel(input.engine);
  const steps = planSteps(plan, input).map((s) => ({ ...s, estimateS: stepSeconds(s, model) }));
  let prefillS = 0;
  let decodeS = 0;
  let totalS = 0;
  for (const s of steps) {
    prefillS += s.prompts * prefillSeconds(model, s.contextTokens);
    if (s.kind === 'cell' || s.kind === 'level') decodeS += s.fixedS;
    totalS += s.estimateS;
  }
  const cellsToRun = plan.cells.filter((c) => c.status === 'run').length;
  return { totalS, prefillS, decodeS, cellsToRun, steps };
}

// What is left of a plan once some cells and prefill points are measured (a resumed run): what the estimate and
// the ETA count.
export function planLeft(
  plan: Plan,
  doneCells: readonly { contextTokens: number; concurrency: number }[],
  donePrefill: readonly { contextTokens: number }[],
  doneLevels: readonly { key: string }[] = [],
): Plan {
  const cells = new Set(doneCells.map((c) => cellKey(c.contextTokens, c.concurrency)));
  const points = new Set(donePrefill.map((p) => p.contextTokens));
  const levels = new Set(doneLevels.map((l) => l.key));
  return {
    ...plan,
    ...(plan.levels
      ? { levels: plan.levels.map((r) => ({ ...r, levels: r.levels.filter((l) => !levels.has(l.key)) })) }
      : {}),
    cells: plan.cells.filter(
      (c) => c.status === 'run' && !cells.has(cellKey(c.contextTokens, c.concurrency)),
    ),
    prefill: plan.prefill.filter((p) => !points.has(p.contextTokens)),
  };
}
