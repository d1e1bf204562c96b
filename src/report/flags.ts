import { contextLabel } from '../format/index.js';
import type { Anomaly } from './anomalies.js';
import { MEASUREMENT_HEADERS } from './model.js';

// Columns found by their header, so a table that gains or reorders columns keeps its marks on the right figure.
const TOTAL = MEASUREMENT_HEADERS.indexOf('Total tok/s');
const TTFT = MEASUREMENT_HEADERS.indexOf('TTFT');

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
            : [],
    ),
  );
}

export const FLAG_LEGEND =
  '⚠ after a figure: it stands out (a prefill point off its neighbours, a TTFT far above the cells around it, or a throughput drop); see Anomalies.';
