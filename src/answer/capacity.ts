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

export interface ContextCapacity {
  contextTokens: number;
  cells: CellJudgement[]; // by concurrency
  capacity: CellJudgement | undefined; // the largest concurrency that meets the level with no failing cell below
  // Every cell measured up to the largest meets it: the capacity may lie above what was measured.
  atLeast: boolean;
  undecided: CellJudgement[]; // too close to call, between the capacity and the limit
  limit: CellJudgement | undefined; // the first cell above the capacity that fails the level
}

// The capacity is the largest N whose cell meets the level, where no lower cell fails it: a cell that fails below
// a meeting one (noise, a stall) stops the count there, since N users can only be served if fewer can. A cell too
// close to call does not stop it (too few requests say neither way).
export function contextCapacity(contextTokens: number, judged: readonly CellJudgement[]): ContextCapacity {
  const cells = [...judged].sort((a, b) => a.cell.concurrency - b.cell.concurrency);
  const firstFail = cells.findIndex((c) => c.verdict === 'fails');
  const upTo = firstFail < 0 ? cells : cells.slice(0, firstFail);
  let capacity: CellJudgement | undefined;
  for (const c of upTo) if (c.verdict === 'meets') capacity = c;
  const from = capacity ? cells.indexOf(capacity) + 1 : 0;
  const limit = firstFail < 0 ? undefined : cells[firstFail];
  const undecided = cells.slice(from, firstFail < 0 ? cells.length : firstFail);
  return {
    contextTokens,
    cells,
    capacity,
    atLeast: capacity !== undefined && capacity === cells[cells.length - 1],
    undecided,
    limit,
  };
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
