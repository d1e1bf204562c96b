import type { DecodeCell, Interval, RunResult } from '../../src/results/schema.js';
import { cellKey } from '../../src/cell-rules.js';

// How a prediction did against a measurement on the cells the twin did not see (docs/twin.md acceptance): per
// figure, the share of measured Valid cells whose prediction falls within its tolerance (10% for tok/s, 25% for
// TTFT), how many were over and under (a twin that misses one way is biased however many it gets), and how often
// the measurement fell inside the predicted interval; statuses over every judged cell.

export const FIGURES = ['total', 'perRequest', 'ttft', 'ttftP90'] as const;
export type Figure = (typeof FIGURES)[number];

// A prediction within 2% is right, neither over nor under: one cell's own draws (speculative steps, a 30 s window) move
// it that much, on the sim as on a server.
const EVEN = 0.02;

export const TOLERANCE: Record<Figure, number> = { total: 0.1, perRequest: 0.1, ttft: 0.25, ttftP90: 0.25 };

const LABEL: Record<Figure, string> = {
  total: 'total',
  perRequest: 'per request',
  ttft: 'TTFT',
  ttftP90: 'TTFT p90',
};

export interface Tally {
  judged: number; // measured Valid cells where both sides have the figure
  within: number;
  over: number; // predicted more than 2% above the measurement
  under: number;
  inInterval: number; // of the cells whose prediction has an interval
  withInterval: number;
}

export interface Judgement {
  cells: number; // cells judged (in both, not fitted on)
  statusRight: number;
  figures: Record<Figure, Tally>;
  misses: string[]; // "16K × 128: Over capacity, predicted Requests queued", "8K × 8: total +12%"
}

const pick: Record<Figure, (c: DecodeCell) => number | null> = {
  total: (c) => c.totalTokensPerS,
  perRequest: (c) => c.perRequestTokensPerS,
  ttft: (c) => c.ttftMs,
  ttftP90: (c) => c.ttft?.p90 ?? null,
};

const interval: Record<Figure, (c: DecodeCell) => Interval | null | undefined> = {
  total: (c) => c.intervals?.totalTokensPerS,
  perRequest: (c) => c.intervals?.perRequestTokensPerS,
  ttft: (c) => c.intervals?.ttftMs,
  ttftP90: (c) => c.prediction?.ttftP90Ms,
};

const emptyTally = (): Tally => ({ judged: 0, within: 0, over: 0, under: 0, inInterval: 0, withInterval: 0 });

export function judge(measured: RunResult, predicted: RunResult, fitted: ReadonlySet<string>): Judgement {
  const pred = new Map(predicted.decode.map((c) => [cellKey(c.contextTokens, c.concurrency), c]));
  const j: Judgement = {
    cells: 0,
    statusRight: 0,
    figures: Object.fromEntries(FIGURES.map((f) => [f, emptyTally()])) as Record<Figure, Tally>,
    misses: [],
  };
  const name = (c: { contextTokens: number; concurrency: number }) =>
    `${Math.round(c.contextTokens / 1024)}K × ${c.concurrency}`;
  const off = (p: number, m: number) => `${p >= m ? '+' : ''}${Math.round((100 * (p - m)) / m)}%`;
  for (const m of measured.decode) {
    const key = cellKey(m.contextTokens, m.concurrency);
    const p = pred.get(key);
    if (!p || fitted.has(key) || m.status === 'Failed') continue;
    j.cells++;
    if (p.status === m.status) j.statusRight++;
    else j.misses.push(`${name(m)}: ${m.status}, predicted ${p.status}`);
    if (m.status !== 'Valid') continue;
    for (const f of FIGURES) {
      const mv = pick[f](m);
      const pv = pick[f](p);
      if (mv === null || pv === null || mv <= 0) continue;
      const t = j.figures[f];
      t.judged++;
      if (pv > mv * (1 + EVEN)) t.over++;
      else if (pv < mv * (1 - EVEN)) t.under++;
      if (Math.abs(pv / mv - 1) <= TOLERANCE[f]) t.within++;
      else j.misses.push(`${name(m)}: ${LABEL[f]} ${off(pv, mv)}`);
      const i = interval[f](p);
      if (i) {
        t.withInterval++;
        if (mv >= i.lo && mv <= i.hi) t.inInterval++;
      }
    }
  }
  return j;
}

/** Whether the misses lean one way: the larger of over and under as a share of both (0.5 = balanced). */
export function lean(t: Tally): number {
  const n = t.over + t.under;
  return n === 0 ? 0.5 : Math.max(t.over, t.under) / n;
}

export { LABEL as FIGURE_LABEL };
