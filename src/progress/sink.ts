import type { DecodeCell, PrefillPoint } from '../results/schema.js';

export interface ProgressStart {
  runId: string;
  dir: string;
  model: string;
  contexts: number[];
  concurrency: number[];
  cellsTotal: number; // cells that will be measured (not Over capacity, not already done)
  prefillTotal: number;
  estimateS: number;
  perCellS: number; // expected window + ramp + settle, for the ETA
  done: DecodeCell[]; // cells already in the result (resume)
  resumed: boolean;
}

// What the runner tells whoever shows progress; every method is cheap and never throws.
export interface ProgressSink {
  start(s: ProgressStart): void;
  phase(text: string): void;
  prefillDone(p: PrefillPoint): void;
  cellDone(c: DecodeCell): void;
  warn(text: string): void;
  finish(text: string): void;
}

export const silentProgress: ProgressSink = {
  start() {},
  phase() {},
  prefillDone() {},
  cellDone() {},
  warn() {},
  finish() {},
};
