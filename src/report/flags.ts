import { contextLabel } from '../format/index.js';
import type { Anomaly } from './anomalies.js';
import { MEASUREMENT_HEADERS } from './model.js';

// Columns found by their header, so a table that gains or reorders columns keeps its marks on the right figure.
const TOTAL = MEASUREMENT_HEADERS.indexOf('Total tok/s');
const TTFT = MEASUREMENT_HEADERS.indexOf('TTFT');
// A stream held on the way: every figure timed by first tokens and arrivals is the proxy's (docs/method.md).
const HELD = (['Per request tok/s', 'TTFT', 'Time between tokens', 'Average active requests'] as const).map(
  (h) => MEASUREMENT_HEADERS.indexOf(h),
);

// Which figure of the All measurements table an anomaly is about: "Phase|Context|N|column index".
export function flaggedFigures(anomalies: readonly Anomaly[]): Set<string> {
  return new Set(
    anomalies.flatMap((a) =>
      a.kind === 'prefill-outlier'
        ? [`Prefill|${contextLabel(a.contextTokens!)}|1|${TOTAL}`]
        : a.kind === 'ttft-outlier'
          ? [`Sustained decode|${contextLabel(a.contextTokens!)}|${a.concurrency}|${TTFT}`]
          : a.kind === 'throughput-drop'
            ? [`Sustained decode|${contextLabel(a.contextTokens!)}|${a.concurrency}|${TOTAL}`]
            : a.kind === 'held-stream'
              ? HELD.map((i) => `Sustained decode|${contextLabel(a.contextTokens!)}|${a.concurrency}|${i}`)
              : [],
    ),
  );
}

export const FLAG_LEGEND =
  '⚠ after a figure: it stands out (a prefill point off its neighbours, a TTFT far above the cells around it, or a throughput drop); see Anomalies.';
export const HELD_LEGEND =
  "⚠ after a TTFT, time between tokens, per-request tok/s or average active: not the server's (the stream was held back on the way); see Anomalies.";

/** The legend lines for the marks flaggedFigures made. */
export function flagLegends(anomalies: readonly Anomaly[]): string[] {
  const standout = anomalies.some((a) =>
    ['prefill-outlier', 'ttft-outlier', 'throughput-drop'].includes(a.kind),
  );
  const held = anomalies.some((a) => a.kind === 'held-stream');
  return [...(standout ? [FLAG_LEGEND] : []), ...(held ? [HELD_LEGEND] : [])];
}
