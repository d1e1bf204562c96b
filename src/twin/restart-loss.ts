import type { CellFigures } from '../sim/what-if.js';
import { cellLabel, type ParamFit } from './fit.js';
import type { DecodeObs } from './observe.js';

// Restart loss beyond TTFT: when a slot's request ends and the next one starts, a measured window can lose more
// time than the new request's TTFT shows (a client that builds each prompt before sending it; a server that does
// work per request outside the first-token wait). The engine model cannot see it; the window does: total tok/s
// falls below per-request tok/s x N by more than the restarts' TTFTs. The twin models it as idle time before each
// re-send, proportional to the prompt (gap = g x context, fitted through the origin), so it grows into the long
// contexts where it matters and a what-if at 1M carries it.

export interface RestartLossFit {
  msPerMTokens: number;
  param: ParamFit;
}

export const RESTART_LOSS = 'restart loss beyond TTFT';

/** The idle time before a re-send that the fitted loss stands for, at one context. */
export const restartGapMs = (msPerMTokens: number, contextTokens: number): number =>
  (msPerMTokens * contextTokens) / 1e6;

interface Point {
  d: DecodeObs;
  z: number; // share of the window one ms-per-million-tokens of g takes, at the twin's restarts
  r: number; // share of the window lost, measured minus twin
}

// Share of each slot's window not spent decoding, measured minus twin; and what one unit of g adds to it.
function point(d: DecodeObs, twin: CellFigures | null): Point | null {
  if (!twin || d.status !== 'Valid' || twin.status !== 'Valid' || d.rampTimedOut) return null;
  if (!d.totalTokensPerS || !d.perRequestTokensPerS || !twin.perRequestTokensPerS) return null;
  if (twin.completed < 1) return null;
  const N = d.concurrency;
  const lostMeasured = 1 - d.totalTokensPerS / (N * d.perRequestTokensPerS);
  const lostTwin = 1 - twin.totalTokensPerS / (N * twin.perRequestTokensPerS);
  const z = (restartGapMs(1, d.contextTokens) * twin.completed) / (N * d.windowS * 1000);
  return { d, z, r: lostMeasured - lostTwin };
}

/** The least-squares step in g that the twin's remaining residuals at g ask for, and the points it used. */
function step(cells: readonly DecodeObs[], twins: Array<CellFigures | null>) {
  const pts = cells.map((d, i) => point(d, twins[i]!)).filter((p): p is Point => p !== null);
  const szz = pts.reduce((s, p) => s + p.z * p.z, 0);
  const dg = szz > 0 ? pts.reduce((s, p) => s + p.z * p.r, 0) / szz : 0;
  const rss = pts.reduce((s, p) => s + (p.r - dg * p.z) ** 2, 0);
  const se = pts.length >= 2 && szz > 0 ? Math.sqrt(rss / (pts.length - 1) / szz) : Infinity;
  return { pts, dg, se };
}

/**
 * g by least squares over the cells whose slots restarted, each cell's lost share weighted alike (a cell's
 * figures carry one error, however many restarts share it). `simulate(g)` gives the twin's figures per cell
 * with gap g. A gap that runs past the window's close loses less than all of it, so the share is not linear
 * in g: the least-squares step is found again at each g and g moved by the secant rule until the step is
 * nil. A negative g is noise (0); so is one under two standard errors, so a client with no loss gets none.
 */
export function fitRestartLoss(
  cells: readonly DecodeObs[],
  simulate: (gMsPerMTokens: number) => Array<CellFigures | null>,
): RestartLossFit {
  let at = { g: 0, ...step(cells, simulate(0)) };
  let prev: typeof at | null = null;
  for (let round = 0; round < 6 && at.pts.length >= 2; round++) {
    const slope = prev && prev.dg !== at.dg ? (at.g - prev.g) / (prev.dg - at.dg) : 1;
    const g = Math.max(0, at.g + at.dg * Math.max(1, Math.min(slope, 4)));
    if (g === 0 || Math.abs(g - at.g) <= 0.005 * Math.max(g, 1)) break;
    prev = at;
    at = { g, ...step(cells, simulate(g)) };
  }
  const { pts, se } = at;
  const g = at.g + at.dg;
  const from = pts.length ? pts.map((p) => cellLabel(p.d)).join(', ') : 'no Valid cell with a restart';
  const fmt = (v: number) => `${(v / 1000).toFixed(2)} s per million prompt tokens`;
  if (pts.length < 2)
    return {
      msPerMTokens: 0,
      param: {
        name: RESTART_LOSS,
        value: '0',
        quality: 'not pinned: fewer than two cells whose slots restarted in the window',
        from,
      },
    };
  const kept = g > 2 * se;
  return {
    msPerMTokens: kept ? Math.round(g) : 0,
    param: {
      name: RESTART_LOSS,
      value: kept ? fmt(g) : '0',
      quality: kept
        ? `± ${(se / 1000).toFixed(2)} s; total vs per-request tok/s beyond the restarts' TTFT`
        : `${fmt(g)} ± ${(se / 1000).toFixed(2)}: not told apart from noise, set to 0`,
      from,
    },
  };
}
