import type { DecodeCell, RunResult, ServiceLevel } from '../results/schema.js';
import { judgeMedians, judgeRequests, type ShareJudgement, type SloVerdict } from '../stats/slo.js';

// The capacity under a service level (docs/method.md "Capacity under a service level"): each decode cell judged by
// the share of its requests that met the level, and per context the largest concurrency whose cell meets it.

export type Basis = 'requests' | 'medians' | 'predicted' | 'not run' | 'failed';

export interface CellJudgement {
  cell: DecodeCell;
  verdict: SloVerdict;
  basis: Basis; // how it was judged: each request, the median request (imported, older), a prediction, or not at all
  share?: ShareJudgement; // absent for a cell not run (Over capacity) or Failed
}

export function judgeCell(cell: DecodeCell, slo: ServiceLevel, predicted = false): CellJudgement {
  if (cell.status === 'Over capacity') return { cell, verdict: 'fails', basis: 'not run' };
  if (cell.status === 'Failed') return { cell, verdict: 'fails', basis: 'failed' };
  if (cell.windowRequests) {
    // A queued cell holds two kinds of request (those that waited, those that did not): the margins test, which
    // assumes one, is left to the count there.
    const share = judgeRequests(cell.windowRequests, slo, { oneMode: cell.status === 'Valid' });
    return { cell, verdict: share.verdict, basis: 'requests', share };
  }
  const share = judgeMedians(
    {
      ttftMs: cell.ttftMs,
      ttftInterval: cell.intervals?.ttftMs ?? cell.prediction?.ttftMs ?? null,
      tokensPerS: cell.perRequestTokensPerS,
      tokensPerSInterval: cell.intervals?.perRequestTokensPerS ?? null,
    },
    slo,
  );
  return { cell, verdict: share.verdict, basis: predicted ? 'predicted' : 'medians', share };
}

export interface Ladder<T> {
  capacity: T | undefined; // the highest step that meets the level with no failing step below
  atLeast: boolean; // every step up to the highest meets it: the capacity may lie above what was measured
  undecided: T[]; // too close to call, between the capacity and the limit
  limit: T | undefined; // the first step that fails the level
}

// The capacity of a ladder of loads, lowest first (users at once, or arrival rates): the highest step whose
// judgement meets the level, where no lower step fails it: a step that fails below a meeting one (noise, a stall)
// stops the count there, since a load can only be served if every lighter one can. A step too close to call does
// not stop it (too few requests say neither way).
export function ladder<T extends { verdict: SloVerdict }>(sorted: readonly T[]): Ladder<T> {
  const firstFail = sorted.findIndex((c) => c.verdict === 'fails');
  const upTo = firstFail < 0 ? sorted : sorted.slice(0, firstFail);
  let capacity: T | undefined;
  for (const c of upTo) if (c.verdict === 'meets') capacity = c;
  const from = capacity ? sorted.indexOf(capacity) + 1 : 0;
  return {
    capacity,
    atLeast: capacity !== undefined && capacity === sorted[sorted.length - 1],
    undecided: sorted.slice(from, firstFail < 0 ? sorted.length : firstFail),
    limit: firstFail < 0 ? undefined : sorted[firstFail],
  };
}

export interface ContextCapacity extends Ladder<CellJudgement> {
  contextTokens: number;
  cells: CellJudgement[]; // by concurrency
}

export function contextCapacity(contextTokens: number, judged: readonly CellJudgement[]): ContextCapacity {
  const cells = [...judged].sort((a, b) => a.cell.concurrency - b.cell.concurrency);
  return { contextTokens, cells, ...ladder(cells) };
}

/** Every decode context of a result with its capacity under the level, ascending. */
export function capacities(r: Pick<RunResult, 'decode' | 'predicted'>, slo: ServiceLevel): ContextCapacity[] {
  const byContext = new Map<number, CellJudgement[]>();
  for (const cell of r.decode) {
    const list = byContext.get(cell.contextTokens) ?? [];
    list.push(judgeCell(cell, slo, r.predicted !== undefined));
    byContext.set(cell.contextTokens, list);
  }
  return [...byContext.entries()].sort((a, b) => a[0] - b[0]).map(([c, cells]) => contextCapacity(c, cells));
}
