import type { CellCounts } from '../plan/counts.js';
import type { EstimateStep } from '../plan/estimate.js';
import type { PrefillModel } from '../plan/prefill-model.js';
import type { DecodeCell, LoadLevel, PrefillPoint } from '../results/schema.js';

export interface CellRef {
  contextTokens: number;
  concurrency: number;
}

export interface ProgressStart {
  runId: string;
  dir: string;
  model: string;
  contexts: number[];
  concurrency: number[];
  counts: CellCounts; // the matrix counted as `plan` counts it (src/plan/counts.ts); resumed cells are done
  prefillTotal: number;
  estimateS: number;
  steps: EstimateStep[]; // what is left to do, in order, with the plan's estimates (the ETA corrects them)
  prefillPrior: PrefillModel; // the prefill model the estimates used
  prefillGuessed?: boolean; // a good part of the estimate is prefill at the engine's prior speed, nothing measured yet
  done: DecodeCell[]; // cells already in the result (resume)
  overCapacity: CellRef[]; // cells the plan skips as Over capacity, not yet in the result: known from the start
  resumed: boolean;
  // Load levels left to measure (docs/workloads.md): planned levels, their rows, a search's most windows per row.
  // drainS: an open level or a trace waits up to this long past its close for its requests (not in the estimate).
  levels?: { levels: number; rows: number; searchWindows?: number; drainS?: number };
}

// What the runner tells whoever shows progress; every method is cheap and never throws.
export interface ProgressSink {
  start(s: ProgressStart): void;
  phase(text: string): void;
  prefillDone(p: PrefillPoint): void;
  cellDone(c: DecodeCell, counts: CellCounts): void; // counts after it (a capacity check may re-plan)
  replanned?(overCapacity: CellRef[]): void;
  // A load level finished and saved; `step` names it in the plan's steps (its key, or its row's search step).
  levelDone?(level: LoadLevel, step: string): void; // a capacity check proved more room: the cells the plan skips now
  warn(text: string): void;
  finish(text: string): void;
  note?(text: string): void; // a line from outside the run (Ctrl-C), shown without breaking the live view
  close?(): void; // the run stopped early: leave the view as it is, the cursor on a fresh line
}

export const silentProgress: ProgressSink = {
  start() {},
  phase() {},
  prefillDone() {},
  cellDone() {},
  levelDone() {},
  warn() {},
  finish() {},
};
