import type { RunResult } from '../results/schema.js';
import { cellKey } from '../cell-rules.js';

// How a prediction did against a measurement on the cells the twin did not see (docs/twin.md acceptance):
// shares of measured Valid cells whose total and per-request tok/s fall within `tolerance`, and of all
// cells whose status matches; plus how often the measured figure fell inside the predicted interval.

export interface Judgement {
  cells: number; // cells judged (in both, not fitted on)
  statusRight: number;
  valid: number; // measured Valid cells with a predicted figure
  totalWithin: number;
  perRequestWithin: number;
  totalInInterval: number;
  misses: string[]; // "16K × 128: Over capacity predicted Requests queued", "8K × 8 total +12%"
}

export function judge(
  measured: RunResult,
  predicted: RunResult,
  fitted: ReadonlySet<string>,
  tolerance = 0.1,
): Judgement {
  const pred = new Map(predicted.decode.map((c) => [cellKey(c.contextTokens, c.concurrency), c]));
  const j: Judgement = {
    cells: 0,
    statusRight: 0,
    valid: 0,
    totalWithin: 0,
    perRequestWithin: 0,
    totalInInterval: 0,
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
    if (m.status !== 'Valid' || m.totalTokensPerS === null || p.totalTokensPerS === null) continue;
    j.valid++;
    if (Math.abs(p.totalTokensPerS / m.totalTokensPerS - 1) <= tolerance) j.totalWithin++;
    else j.misses.push(`${name(m)}: total ${off(p.totalTokensPerS, m.totalTokensPerS)}`);
    const i = p.intervals?.totalTokensPerS;
    if (i && m.totalTokensPerS >= i.lo && m.totalTokensPerS <= i.hi) j.totalInInterval++;
    if (m.perRequestTokensPerS !== null && p.perRequestTokensPerS !== null) {
      if (Math.abs(p.perRequestTokensPerS / m.perRequestTokensPerS - 1) <= tolerance) j.perRequestWithin++;
      else j.misses.push(`${name(m)}: per request ${off(p.perRequestTokensPerS, m.perRequestTokensPerS)}`);
    }
  }
  return j;
}
