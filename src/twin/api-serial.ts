import { isMeasured } from '../cell-rules.js';
import type { Profile } from '../sim/profile-schema.js';
import type { CellFigures } from '../sim/what-if.js';
import { cellLabel, type ParamFit } from './fit.js';
import type { DecodeObs } from './observe.js';

// The API server's serial time (docs/twin.md "TTFT"): a cell's ramp sends N prompts at once and the API server
// handles part of each one at a time (one thread: templating, tokenizing), so the k-th reaches the engine k - 1
// serial times after the first. Where requests outlast the window that first wave is the cell's TTFT, and its
// median grows with N. The warm TTFT of one request (the API time) cannot show it; cells with several requests
// at once do. Each such cell gives the serial time at its context that makes the twin's median TTFT match it
// (found by simulating the cells with serial time = share x API time, share 0, 0.5 and then the median of what
// the cells ask for); serial time = fixed ms + prompt / rate by least squares over them, each weighted by how
// much its TTFT says (its wave's length against its TTFT). A cell the twin cannot match even with all of the
// API time serial (the H200 seed's 11 s at 8K × 32: a pause) is left out and named.

export interface ApiSerialFit {
  pinned: boolean; // some cell with several requests at once said what the serial time is
  serialMs: number;
  serialTokensPerS: number; // 0: no per-token part
  param: ParamFit;
}

export const API_SERIAL = 'API server serial time';

const PROBE = 0.5;

/** The profile with serial time = share x its API time at every context. */
export const withSerialShare = (p: Profile, share: number): Profile => ({
  ...p,
  apiSerialMs: share * p.requestOverheadMs,
  apiSerialTokensPerS: share > 0 && p.apiTokensPerS > 0 ? p.apiTokensPerS / share : 0,
});

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

interface Point {
  d: DecodeObs;
  at: Array<[share: number, ttftMs: number]>; // the twin's median TTFT at the shares simulated so far
}

// The share at which this cell's TTFT meets the measurement: the twin's TTFT against the share, piecewise linear
// through the shares simulated so far, inverted (extended along the end segments, never below 0); null where the
// cell's TTFT does not respond to the share (its requests never meet at the API server).
function implied(p: Point): number | null {
  const m = p.d.ttftMs!;
  const at = [...p.at].sort((a, b) => a[0] - b[0]);
  const first = at[0]!;
  const last = at[at.length - 1]!;
  if (!(last[1] - first[1] > 0.05 * first[1])) return null;
  let i = 1;
  while (i < at.length - 1 && at[i]![1] < m) i++;
  const [a, b] = [at[i - 1]!, at[i]!];
  if (!(b[1] > a[1])) return null;
  return Math.max(0, a[0] + ((m - a[1]) * (b[0] - a[0])) / (b[1] - a[1]));
}

interface Implied {
  d: DecodeObs;
  share: number;
  serialMs: number; // share x API time at the cell's context
  weight: number; // (N - 1) / 2 / TTFT: how much one ms of serial time moves this cell's TTFT, relatively
}

/** Each cell that ran with several requests at once (its ramp in time): the share of its API time that would
 * match its TTFT. A queued cell counts: the twin queues its requests behind the same seats. */
function impliedShares(
  profile: Profile,
  cells: readonly DecodeObs[],
  simulate: (share: number) => Array<CellFigures | null>,
): Implied[] {
  const idx = cells
    .map((d, i) => [d, i] as const)
    .filter(([d]) => isMeasured(d.status) && !d.rampTimedOut)
    .filter(([d]) => d.concurrency >= 2 && d.ttftMs !== null && d.ttftMs > 0);
  const pts: Point[] = idx.map(([d]) => ({ d, at: [] }));
  const record = (share: number) => {
    const figs = simulate(share);
    idx.forEach(([, i], k) => {
      const t = figs[i]?.ttftMs;
      if (t !== null && t !== undefined) pts[k]!.at.push([share, t]);
    });
  };
  const shares = () =>
    pts
      .filter((p) => p.at.length >= 2)
      .map((p) => ({ d: p.d, share: implied(p) }))
      .filter((x): x is { d: DecodeObs; share: number } => x.share !== null);
  record(0);
  record(PROBE);
  // Once more where the cells are (the median share), so each one's inversion is local.
  const first = shares().filter((x) => x.share <= 1);
  if (first.length) {
    const m = Math.round(median(first.map((x) => x.share)) * 1000) / 1000;
    if (m !== 0 && m !== PROBE) record(m);
  }
  const apiMs = (c: number) =>
    profile.requestOverheadMs + (profile.apiTokensPerS > 0 ? (c * 1000) / profile.apiTokensPerS : 0);
  return shares().map((x) => ({
    ...x,
    serialMs: x.share * apiMs(x.d.contextTokens),
    weight: (x.d.concurrency - 1) / 2 / x.d.ttftMs!,
  }));
}

// serial = a + b x C by weighted least squares (closed form); b < 0 or a < 0 is noise: the other term alone.
function line(pts: readonly Implied[]): { a: number; b: number } {
  let [sw, sx, sy, sxx, sxy] = [0, 0, 0, 0, 0];
  for (const p of pts) {
    const w = p.weight ** 2;
    const x = p.d.contextTokens;
    sw += w;
    sx += w * x;
    sy += w * p.serialMs;
    sxx += w * x * x;
    sxy += w * x * p.serialMs;
  }
  const det = sw * sxx - sx * sx;
  let b = det > 0 ? (sw * sxy - sx * sy) / det : 0;
  let a = det > 0 ? (sy - b * sx) / sw : sy / sw;
  if (b < 0) [a, b] = [sy / sw, 0];
  else if (a < 0) [a, b] = [0, sxx > 0 ? sxy / sxx : 0];
  return { a, b };
}

/**
 * The serial time from the Valid cells with several requests at once; `simulate(share)` gives the twin's figures
 * per cell with serial time = share x API time. 0 when no cell's TTFT responds to it.
 */
export function fitApiSerial(
  profile: Profile,
  cells: readonly DecodeObs[],
  simulate: (share: number) => Array<CellFigures | null>,
): ApiSerialFit {
  if (profile.requestOverheadMs === 0 && profile.apiTokensPerS === 0)
    return {
      pinned: true,
      serialMs: 0,
      serialTokensPerS: 0,
      param: {
        name: API_SERIAL,
        value: '0',
        quality: 'no API server time to queue for',
        from: 'API server time',
      },
    };
  const all = impliedShares(profile, cells, simulate);
  const used = all.filter((x) => x.share <= 1);
  const beyond = all.filter((x) => x.share > 1).map((x) => x.d);
  if (used.length === 0)
    return {
      pinned: false,
      serialMs: 0,
      serialTokensPerS: 0,
      param: {
        name: API_SERIAL,
        value: '0',
        quality:
          'not pinned: no Valid cell whose TTFT depends on it (several requests reaching the API at once)',
        from: beyond.length ? `left out ${beyond.map(cellLabel).join(', ')}` : 'no such cell',
      },
    };
  // One context: the per-token part cannot be told from the fixed one; keep the API time's own split.
  const oneContext = new Set(used.map((x) => x.d.contextTokens)).size < 2;
  const share = median(used.map((x) => x.share));
  const fit = oneContext
    ? {
        a: share * profile.requestOverheadMs,
        b: profile.apiTokensPerS > 0 ? (1000 * share) / profile.apiTokensPerS : 0,
      }
    : line(used);
  const rate = fit.b > 0 ? Math.round(1000 / fit.b) : 0; // fit.b: ms per prompt token
  const ms = Math.round(fit.a * 10) / 10;
  return {
    pinned: true,
    serialMs: ms,
    serialTokensPerS: rate,
    param: {
      name: API_SERIAL,
      value: `${ms.toFixed(0)} ms${rate ? ` + prompt / ${(rate / 1000).toFixed(0)}K tok/s` : ''} of each request, one at a time`,
      quality:
        (oneContext
          ? `one context: ${share.toFixed(2)} of the API time (median of ${used.length} cells)`
          : `least squares over ${used.length} cells`) +
        (beyond.length
          ? `; left out ${beyond.map(cellLabel).join(', ')} (a TTFT no serial time reaches: a pause the model does not have)`
          : ''),
      from: used.map((x) => cellLabel(x.d)).join(', '),
    },
  };
}
