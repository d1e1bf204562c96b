import type { ErrorKind } from '../results/schema.js';
import { medianInterval, totalRateInterval, type Interval } from './interval.js';
import { median, quantiles, sortSamples, type QuantileSet } from './sorted.js';
import { stallThresholdMs } from '../cell-rules.js';
import { checkOptions, keysOf } from '../option-keys.js';

// What the window accounting needs from a request (a RequestRecord or a truth log entry both fit).
export interface TimedRequest {
  sentAtMs: number;
  firstTokenAtMs?: number;
  endAtMs: number;
  chunks: ReadonlyArray<readonly [number, number]>; // [arrivalMs, tokens], token-bearing chunks only
  ok: boolean;
  errorKind?: ErrorKind;
}

export interface MeasureWindow {
  openMs: number;
  closeMs: number; // a chunk counts when openMs <= arrival < closeMs
}

// 95% intervals of the cell's headline figures (src/stats/interval.ts); null where the window had too little data.
export interface CellIntervals {
  totalTokensPerS: Interval | null;
  perRequestTokensPerS: Interval | null;
  ttftMs: Interval | null;
  tbtMs: Interval | null;
}

export interface Stalls {
  count: number; // stalled gaps, over all requests
  totalMs: number; // union of the stalled spans
  maxGapMs: number | null; // the longest gap between chunks of one request in the window
}

export interface WindowFigures {
  outputTokens: number;
  totalTokensPerS: number | null;
  perRequestTokensPerS: number | null;
  perRequestTokensPerSQ: QuantileSet;
  ttftMs: number | null;
  ttft: QuantileSet;
  tbtMs: number | null;
  chunkGapMs: QuantileSet;
  avgActive: number | null;
  completed: number;
  measuredS: number;
  requestsSent: number;
  errors: Partial<Record<ErrorKind, number>>;
  abortedAtClose: number;
  intervals: CellIntervals;
  stalls: Stalls;
}

interface InWindow {
  tokens: number;
  firstMs: number;
  lastMs: number;
  tokensAfterFirstChunk: number;
}

// A multi-token chunk's tokens arrive together: the first chunk's tokens are the "first in-window token(s)", so
// rate and time between tokens use the tokens of the later chunks (counting tokens, never chunks).
export function inWindow(r: TimedRequest, w: MeasureWindow): InWindow | undefined {
  let tokens = 0;
  let firstMs = NaN;
  let lastMs = NaN;
  let firstTokens = 0;
  for (const [t, n] of r.chunks) {
    if (t < w.openMs || t >= w.closeMs || n <= 0) continue;
    if (Number.isNaN(firstMs)) {
      firstMs = t;
      firstTokens = n;
    }
    lastMs = t;
    tokens += n;
  }
  if (tokens === 0) return undefined;
  return { tokens, firstMs, lastMs, tokensAfterFirstChunk: tokens - firstTokens };
}

const WINDOW_KEYS = keysOf<MeasureWindow>({ openMs: true, closeMs: true });

export function windowFigures(requests: readonly TimedRequest[], w: MeasureWindow): WindowFigures {
  checkOptions('windowFigures', w, WINDOW_KEYS);
  const lengthMs = w.closeMs - w.openMs;
  let outputTokens = 0;
  const rates: number[] = [];
  const tbts: number[] = [];
  const gaps: number[] = [];
  const ttfts: number[] = [];
  let activeMs = 0;
  let completed = 0;
  let abortedAtClose = 0;
  const errors: Partial<Record<ErrorKind, number>> = {};
  const spans: Array<[number, number]> = [];
  for (const r of requests) {
    const iw = inWindow(r, w);
    if (iw) {
      outputTokens += iw.tokens;
      const spanMs = iw.lastMs - iw.firstMs;
      if (spanMs > 0 && iw.tokensAfterFirstChunk > 0) {
        rates.push((iw.tokensAfterFirstChunk * 1000) / spanMs);
        tbts.push(spanMs / iw.tokensAfterFirstChunk);
      }
    }
    let prev: number | undefined;
    for (const [t] of r.chunks) {
      if (t < w.openMs || t >= w.closeMs) continue;
      if (prev !== undefined) {
        gaps.push(t - prev);
        spans.push([prev, t]);
      }
      prev = t;
    }
    if (r.firstTokenAtMs !== undefined && r.sentAtMs < w.closeMs) ttfts.push(r.firstTokenAtMs - r.sentAtMs);
    if (r.firstTokenAtMs !== undefined) {
      const from = Math.max(r.firstTokenAtMs, w.openMs);
      const to = Math.min(r.endAtMs, w.closeMs);
      if (to > from) activeMs += to - from;
    }
    if (r.ok && r.endAtMs >= w.openMs && r.endAtMs < w.closeMs) completed += 1;
    if (!r.ok && r.errorKind) {
      if (r.errorKind === 'aborted') abortedAtClose += 1;
      else errors[r.errorKind] = (errors[r.errorKind] ?? 0) + 1;
    }
  }
  const gapS = sortSamples(gaps);
  const rateS = sortSamples(rates);
  const ttftS = sortSamples(ttfts);
  const tbtS = sortSamples(tbts);
  return {
    outputTokens,
    totalTokensPerS: lengthMs > 0 ? (outputTokens * 1000) / lengthMs : null,
    perRequestTokensPerS: median(rateS),
    perRequestTokensPerSQ: quantiles(rateS),
    ttftMs: median(ttftS),
    ttft: quantiles(ttftS),
    tbtMs: median(tbtS),
    chunkGapMs: quantiles(gapS),
    avgActive: lengthMs > 0 ? activeMs / lengthMs : null,
    completed,
    measuredS: lengthMs / 1000,
    requestsSent: requests.length,
    errors,
    abortedAtClose,
    intervals: {
      totalTokensPerS: totalRateInterval(
        requests.flatMap((r) => r.chunks),
        w.openMs,
        w.closeMs,
      ),
      perRequestTokensPerS: medianInterval(rateS),
      ttftMs: medianInterval(ttftS),
      tbtMs: medianInterval(tbtS),
    },
    stalls: findStalls(spans, median(gapS)),
  };
}

export function findStalls(
  spans: ReadonlyArray<readonly [number, number]>,
  medianGapMs: number | null,
): Stalls {
  let maxGapMs: number | null = null;
  for (const [a, b] of spans) maxGapMs = Math.max(maxGapMs ?? 0, b - a);
  const threshold = stallThresholdMs(medianGapMs);
  const long = spans.filter(([a, b]) => b - a >= threshold).sort((x, y) => x[0] - y[0]);
  let totalMs = 0;
  let end = -Infinity;
  for (const [a, b] of long) {
    if (a >= end) {
      totalMs += b - a;
      end = b;
    } else if (b > end) {
      totalMs += b - end;
      end = b;
    }
  }
  return { count: long.length, totalMs, maxGapMs };
}
