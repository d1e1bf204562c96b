import type { DecodeCell } from '../results/schema.js';
import type { Plan } from './plan.js';
import { cellKey } from '../cell-rules.js';

// One way to count a matrix's cells, used by `plan`, the run's first line, its live view and its last line:
// every cell is measured, checked (measured over the KV capacity figure to see what the server
// does), skipped as Over capacity, or skipped as too long for the server. Measured and checked cells are the
// ones the run spends time on; "x/y" progress counts them, resumed cells included.

export interface CellCounts {
  cells: number; // contexts x concurrency
  measure: number; // measured, or to be
  check: number; // capacity checks: measured over the capacity figure
  over: number; // skipped: Over capacity
  tooLong: number; // skipped: the context does not fit the server
  done: number; // of measure + check, finished (earlier sessions of a resumed run included)
}

type Kind = 'measure' | 'check' | 'over' | 'tooLong';

// A cell the run kept as Failed because its context was refused as too long was not measured at its
// concurrency (src/bench/phases/too-long.ts).
const refusedTooLong = (c: DecodeCell) => c.status === 'Failed' && /^CONTEXT_TOO_LONG\b/.test(c.error ?? '');

function doneKind(c: DecodeCell): Kind {
  if (c.status === 'Over capacity') return 'over';
  if (refusedTooLong(c)) return 'tooLong';
  return c.capacityCheck ? 'check' : 'measure';
}

function plannedKind(c: Plan['cells'][number]): Kind {
  if (c.status === 'Over capacity') return 'over';
  if (c.status === 'Too long') return 'tooLong';
  return c.capacityCheck ? 'check' : 'measure';
}

// The plan as it stands (a capacity check that ran whole re-plans the cells after it) and the cells finished.
export function countCells(plan: Plan, done: readonly DecodeCell[] = []): CellCounts {
  const finished = new Map(done.map((c) => [cellKey(c.contextTokens, c.concurrency), c]));
  const n: CellCounts = { cells: 0, measure: 0, check: 0, over: 0, tooLong: 0, done: 0 };
  for (const p of plan.cells) {
    const d = finished.get(cellKey(p.contextTokens, p.concurrency));
    const kind = d ? doneKind(d) : plannedKind(p);
    n.cells += 1;
    n[kind] += 1;
    if (d && (kind === 'measure' || kind === 'check')) n.done += 1;
  }
  return n;
}

// Cells the run spends time on: the "y" of "x/y measured".
export const toMeasure = (n: CellCounts): number => n.measure + n.check;

const plural = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;

function skipped(n: CellCounts): string[] {
  return [
    ...(n.over ? [`${n.over} skipped as Over capacity`] : []),
    ...(n.tooLong ? [`${n.tooLong} skipped as too long for the server`] : []),
  ];
}

const checks = (n: CellCounts) =>
  n.check ? ` (${n.check === 1 ? '1 a capacity check' : `${n.check} of them capacity checks`})` : '';

// Before: "16 cells: 13 to measure (1 a capacity check), 3 skipped as Over capacity"; a resumed run adds how
// many are measured already.
export function plannedCountsText(n: CellCounts): string {
  const measure = `${toMeasure(n)} to measure${checks(n)}${n.done ? `, ${n.done} of them measured already` : ''}`;
  return [`${plural(n.cells, 'cell')}: ${measure}`, ...skipped(n)].join(', ');
}

// After: "16 cells: 13 measured (1 a capacity check), 3 skipped as Over capacity".
export function doneCountsText(n: CellCounts): string {
  const left = toMeasure(n) - n.done;
  return [
    `${plural(n.cells, 'cell')}: ${n.done} measured${checks(n)}`,
    ...skipped(n),
    ...(left > 0 ? [`${left} not measured`] : []),
  ].join(', ');
}
