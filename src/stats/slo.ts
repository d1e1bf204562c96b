import type { ServiceLevel, WindowRequests } from '../results/schema.js';
import { CONFIDENCE, zQuantile, type Interval } from './interval.js';
import { inWindow, type MeasureWindow, type TimedRequest } from './window.js';

// A service level and the share of a cell's requests that met it (docs/method.md "Service level"). Pure: the
// runner stores each window request's TTFT and decode rate (windowRequests), and any service level is judged from
// them later, without the request log.

// The default when none is given: an interactive chat, a first token within 2 s and faster than reading (20
// tok/s is about three times a fast reader's pace), for nine requests in ten.
export const DEFAULT_SERVICE_LEVEL: ServiceLevel = { name: 'chat', ttftMs: 2000, tokensPerS: 20, share: 0.9 };
const PRESETS: Record<string, ServiceLevel> = { chat: DEFAULT_SERVICE_LEVEL };

export const SLO_SYNTAX = 'ttft=2s,tok/s=20,share=90% (any of the three; or the name chat)';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** Parses `ttft=2s,tok/s=20,share=90%` (or `chat`, or `chat,share=95%`); a string says what is wrong. */
export function parseServiceLevel(text: string): ServiceLevel | string {
  const items = text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!items.length) return `expected a service level like ${SLO_SYNTAX}`;
  // Two items run together (`ttft=2s;tok/s=20`, `ttft=2s tok/s=20`): the value would be refused for its unit, where
  // what is wrong is the separator.
  if (items.some((x) => (x.match(/=/g)?.length ?? 0) > 1 || /^[a-z]+[;&|:]/i.test(x))) {
    const fixed = text.trim().replace(/\s*[;&|:]\s*|\s+(?=[a-z/]+\s*=)/gi, ',');
    const example = typeof parseServiceLevel(fixed) === 'string' ? 'ttft=2s,tok/s=20' : fixed;
    return `"${text.trim()}": separate the items of a service level with commas, as in ${example}`;
  }
  let out: ServiceLevel = { share: DEFAULT_SERVICE_LEVEL.share };
  let changed = false;
  for (const [i, item] of items.entries()) {
    const eq = item.indexOf('=');
    if (eq < 0) {
      const preset = PRESETS[item.toLowerCase()];
      if (!preset || i > 0) return `unknown service level "${item}": expected ${SLO_SYNTAX}`;
      out = { ...preset };
      continue;
    }
    const key = item.slice(0, eq).trim().toLowerCase();
    const value = item.slice(eq + 1).trim();
    changed = true;
    if (key === 'ttft') {
      const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/i.exec(value);
      const ms = m ? Number(m[1]) * UNIT_MS[(m[2] ?? 's').toLowerCase()]! : 0;
      if (!(ms > 0)) return `ttft=${value}: expected a time like 500ms or 2s`;
      out.ttftMs = ms;
    } else if (key === 'tok/s' || key === 'tps' || key === 'tokens/s') {
      const v = /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : 0;
      if (!(v > 0)) return `${key}=${value}: expected a decode rate per request like 20`;
      out.tokensPerS = v;
    } else if (key === 'share') {
      const m = /^(\d+(?:\.\d+)?)\s*%?$/.exec(value);
      const share = m ? Number(m[1]) / 100 : 0;
      if (!(share > 0 && share <= 1)) return `share=${value}: expected a share of requests like 90%`;
      out.share = share;
    } else return `unknown key "${key}" in the service level: expected ${SLO_SYNTAX}`;
  }
  if (changed) delete out.name; // a named level changed is no longer that level
  if (out.ttftMs === undefined && out.tokensPerS === undefined)
    return `a service level needs ttft= or tok/s=: e.g. ${SLO_SYNTAX}`;
  return out;
}

const num = (v: number): string => String(Math.round(v * 1000) / 1000);
const msText = (ms: number): string => (ms < 1000 ? `${num(ms)}ms` : `${num(ms / 1000)}s`);

/** The canonical spelling, as --slo takes it back: `ttft=2s,tok/s=20,share=90%`. */
export function formatServiceLevel(s: ServiceLevel): string {
  return [
    ...(s.ttftMs !== undefined ? [`ttft=${msText(s.ttftMs)}`] : []),
    ...(s.tokensPerS !== undefined ? [`tok/s=${num(s.tokensPerS)}`] : []),
    `share=${num(s.share * 100)}%`,
  ].join(',');
}

/** In words: "first token within 2 s and at least 20 tok/s each, for 90% of requests". */
export function describeServiceLevel(s: ServiceLevel): string {
  const parts = [
    ...(s.ttftMs !== undefined ? [`first token within ${msText(s.ttftMs).replace(/(ms|s)$/, ' $1')}`] : []),
    ...(s.tokensPerS !== undefined ? [`at least ${num(s.tokensPerS)} tok/s each`] : []),
  ];
  return `${parts.join(' and ')}, for ${num(s.share * 100)}% of requests`;
}

/** "chat: first token within 2 s ..." for a named level, the description alone otherwise. */
export function nameServiceLevel(s: ServiceLevel): string {
  return s.name ? `${s.name} (${describeServiceLevel(s)})` : describeServiceLevel(s);
}

const r1 = (x: number) => Math.round(x * 10) / 10;
const r2 = (x: number) => Math.round(x * 100) / 100;

// Each request of the cell (ramp and window sends, as the TTFT figure counts them) with what a service level asks
// of it: its TTFT, its own decode rate in the window (the per-request tok/s figure's definition), or, without a
// first token, how long it had waited by the close; a request that failed met no service level.
export function windowRequestSamples(requests: readonly TimedRequest[], w: MeasureWindow): WindowRequests {
  const ttftMs: number[] = [];
  const tokensPerS: Array<number | null> = [];
  const waitedMs: number[] = [];
  let failed = 0;
  for (const r of requests) {
    if (r.sentAtMs >= w.closeMs) continue;
    if (!r.ok && r.errorKind !== undefined && r.errorKind !== 'aborted') {
      failed += 1;
      continue;
    }
    if (r.firstTokenAtMs === undefined || r.firstTokenAtMs >= w.closeMs) {
      waitedMs.push(r1(Math.max(0, Math.min(r.endAtMs, w.closeMs) - r.sentAtMs)));
      continue;
    }
    ttftMs.push(r1(r.firstTokenAtMs - r.sentAtMs));
    const iw = inWindow(r, w);
    const span = iw ? iw.lastMs - iw.firstMs : 0;
    tokensPerS.push(
      iw && span > 0 && iw.tokensAfterFirstChunk > 0 ? r2((iw.tokensAfterFirstChunk * 1000) / span) : null,
    );
  }
  return {
    ttftMs,
    tokensPerS,
    ...(waitedMs.length ? { waitedMs } : {}),
    ...(failed ? { failed } : {}),
  };
}

/** The requests of several windows of one cell (--repeats) as one sample. */
export function mergeWindowRequests(
  parts: ReadonlyArray<WindowRequests | undefined>,
): WindowRequests | undefined {
  const have = parts.filter((p): p is WindowRequests => p !== undefined);
  if (!have.length) return undefined;
  const waitedMs = have.flatMap((p) => p.waitedMs ?? []);
  const failed = have.reduce((a, p) => a + (p.failed ?? 0), 0);
  return {
    ttftMs: have.flatMap((p) => p.ttftMs),
    tokensPerS: have.flatMap((p) => p.tokensPerS),
    ...(waitedMs.length ? { waitedMs } : {}),
    ...(failed ? { failed } : {}),
  };
}

export type SloVerdict = 'meets' | 'fails' | 'too close to call';

export interface Misses {
  ttft: number; // first token later than the level (or still none when the wait passed it)
  rate: number; // decoded slower than the level (and not already late)
  failed: number; // failed requests
}

export interface ShareJudgement {
  basis: 'requests' | 'medians'; // each request judged, or (no per-request data) the median request
  verdict: SloVerdict;
  share: number | null; // met / judged; for medians 1 or 0 (whether the median request meets it)
  interval: Interval | null; // 95% interval of the share (Wilson), requests only
  met: number;
  judged: number;
  undecided: number; // requests the level cannot judge (no rate yet and not late; waited less than the TTFT)
  decidedBy?: 'count' | 'margins'; // which test decided a meets or fails verdict (requests only)
  misses: Misses;
}

const Z95 = zQuantile(1 - (1 - CONFIDENCE) / 2);

/** Wilson score interval of k successes of n at 95%. */
export function wilsonInterval(k: number, n: number, z = Z95): Interval | null {
  if (n <= 0) return null;
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

// The count test's verdict for `met` of `judged` requests: decided when the Wilson interval clears the share.
const countDecides = (met: number, judged: number, share: number): boolean => {
  const i = wilsonInterval(met, judged);
  return i !== null && (met / judged >= share ? i.lo >= share : i.hi < share);
};

/**
 * How many requests the count test needs to decide a cell whose requests meet the level in the proportion seen
 * (`met` of `judged`): 35 that all met for a share of 90%, more the nearer the proportion is to the share.
 * Undefined where even `cap` would not (a proportion at the share itself).
 */
export function requestsToDecide(
  met: number,
  judged: number,
  share: number,
  cap = 10_000,
): number | undefined {
  const p = judged > 0 ? met / judged : 1;
  const decides = (n: number) => countDecides(Math.round(p * n), n, share);
  let hi = Math.max(1, judged);
  while (!decides(hi)) {
    if (hi >= cap) return undefined;
    hi = Math.min(cap, hi * 2);
  }
  let lo = Math.max(1, Math.floor(hi / 2));
  if (decides(lo)) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (decides(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

// One-sided normal tolerance factors (Natrella's approximation, NIST e-Handbook 7.2.6.3) for the `share` quantile
// from n samples at 97.5% confidence each way: mean - kLo x sd is a lower confidence bound of the (1 - share)
// quantile, mean - kHi x sd an upper one. From 5 samples (within 10% of the exact noncentral-t factor there, 1% from
// 10); null below, where the approximation runs away.
export function toleranceFactors(n: number, share: number, z = Z95): { kLo: number; kHi: number } | null {
  if (n < 5 || share <= 0.5 || share >= 1) return null;
  const zp = zQuantile(share);
  const a = 1 - (z * z) / (2 * (n - 1));
  const b = zp * zp - (z * z) / n;
  const d = zp * zp - a * b;
  if (a <= 0 || d < 0) return null;
  return { kLo: (zp + Math.sqrt(d)) / a, kHi: (zp - Math.sqrt(d)) / a };
}

// How far one request is from missing: the smaller of target TTFT / its TTFT and its rate / target rate (above 1
// it met the level). Undefined when the level asks for a rate the request has none of.
function margin(ttft: number, rate: number | null, slo: ServiceLevel): number | undefined {
  let m = Infinity;
  if (slo.ttftMs !== undefined) m = Math.min(m, slo.ttftMs / Math.max(ttft, 0.1));
  if (slo.tokensPerS !== undefined) {
    if (rate === null) return undefined;
    m = Math.min(m, rate / slo.tokensPerS);
  }
  return m;
}

// Requests of one cell differ at least this much (one standard deviation of the log margin, about +-28%) however
// alike the few we saw: a floor so that one or two requests cannot make a margin look certain.
export const MIN_LOG_SPREAD = 0.25;

export interface JudgeOptions {
  // The margins test assumes one mode; a queued cell has two (requests that waited and requests that did not).
  oneMode?: boolean;
}

// Two tests (docs/method.md "Service level"). The count: the Wilson interval of met among judged, which assumes
// nothing about the requests. The margins, for a cell with one mode where every judged request met: a normal
// lower tolerance bound on the (1 - share) quantile of the log margins (their spread at least MIN_LOG_SPREAD),
// since three requests that each met a 2 s level in 0.1 s say little by count and much by margin. A cell meets
// the level when either test says so, fails when the count says so, and is too close to call otherwise.
export function judgeRequests(w: WindowRequests, slo: ServiceLevel, o: JudgeOptions = {}): ShareJudgement {
  const misses: Misses = { ttft: 0, rate: 0, failed: w.failed ?? 0 };
  let met = 0;
  let undecided = 0;
  const logMargins: number[] = [];
  for (let i = 0; i < w.ttftMs.length; i++) {
    const ttft = w.ttftMs[i]!;
    const rate = w.tokensPerS[i] ?? null;
    const late = slo.ttftMs !== undefined && ttft > slo.ttftMs;
    if (late) misses.ttft += 1;
    const m = margin(ttft, rate, slo);
    if (m === undefined) {
      if (!late) undecided += 1;
      continue;
    }
    if (m >= 1) {
      met += 1;
      logMargins.push(Math.log(m));
    } else if (!late) misses.rate += 1;
  }
  for (const waited of w.waitedMs ?? [])
    if (slo.ttftMs !== undefined && waited > slo.ttftMs) misses.ttft += 1;
    else undecided += 1;
  const judged = met + misses.ttft + misses.rate + misses.failed;
  const share = judged ? met / judged : null;
  const interval = wilsonInterval(met, judged);
  const base = { basis: 'requests' as const, share, interval, met, judged, undecided, misses };
  if (share === null || interval === null) return { ...base, verdict: 'too close to call' };
  if (countDecides(met, judged, slo.share))
    return { ...base, verdict: share >= slo.share ? 'meets' : 'fails', decidedBy: 'count' };
  if (o.oneMode && met === judged && marginBound(logMargins, slo.share) >= 0)
    return { ...base, verdict: 'meets', decidedBy: 'margins' };
  return { ...base, verdict: 'too close to call' };
}

// Lower 97.5% confidence bound of the (1 - share) quantile of the log margins under a normal model, with the spread
// at least MIN_LOG_SPREAD. From 5 requests the spread is estimated (tolerance factors); below, it cannot be, and
// is taken as the floor, known (z factors): the one assumption the method makes about a cell of few requests.
export function marginBound(logMargins: readonly number[], share: number): number {
  const n = logMargins.length;
  if (n === 0 || share >= 1) return -Infinity;
  const mean = logMargins.reduce((a, x) => a + x, 0) / n;
  const sd = n > 1 ? Math.sqrt(logMargins.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0;
  const k = toleranceFactors(n, share);
  if (k) return mean - k.kLo * Math.max(sd, MIN_LOG_SPREAD);
  if (sd > MIN_LOG_SPREAD) return -Infinity; // too few requests to trust a spread wider than the floor
  return mean - (zQuantile(Math.max(share, 0.5)) + Z95 / Math.sqrt(n)) * MIN_LOG_SPREAD;
}

export interface MedianFigures {
  ttftMs: number | null;
  ttftInterval?: Interval | null;
  tokensPerS: number | null; // the median per-request decode rate
  tokensPerSInterval?: Interval | null;
}

// Without per-request data (an imported v0.6.2 report, a prediction, a result from before windowRequests) only the
// median request can be judged: it meets when its figures' 95% intervals lie on the right side of the level,
// fails when they lie on the wrong side, and is too close to call between. The share itself is out of reach:
// the reports say "median request" beside such a verdict.
export function judgeMedians(f: MedianFigures, slo: ServiceLevel): ShareJudgement {
  const misses: Misses = { ttft: 0, rate: 0, failed: 0 };
  const sides: Array<'in' | 'out' | 'open'> = [];
  if (slo.ttftMs !== undefined) {
    if (f.ttftMs === null) sides.push('open');
    else {
      const i = f.ttftInterval ?? { lo: f.ttftMs, hi: f.ttftMs };
      const side = i.hi <= slo.ttftMs ? 'in' : i.lo > slo.ttftMs ? 'out' : 'open';
      if (side === 'out') misses.ttft = 1;
      sides.push(side);
    }
  }
  if (slo.tokensPerS !== undefined) {
    if (f.tokensPerS === null) sides.push('open');
    else {
      const i = f.tokensPerSInterval ?? { lo: f.tokensPerS, hi: f.tokensPerS };
      const side = i.lo >= slo.tokensPerS ? 'in' : i.hi < slo.tokensPerS ? 'out' : 'open';
      if (side === 'out' && !misses.ttft) misses.rate = 1;
      sides.push(side);
    }
  }
  const verdict: SloVerdict = sides.includes('out')
    ? 'fails'
    : sides.every((s) => s === 'in')
      ? 'meets'
      : 'too close to call';
  const share = verdict === 'meets' ? 1 : verdict === 'fails' ? 0 : null;
  return {
    basis: 'medians',
    verdict,
    share,
    interval: null,
    met: share ?? 0,
    judged: share === null ? 0 : 1,
    undecided: 0,
    misses,
  };
}
