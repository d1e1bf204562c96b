import { contextLabel } from '../format/index.js';
import type { Anomaly } from './anomalies.js';

// Which figure of the All measurements table an anomaly is about: "Phase|Context|N|column index".
export function flaggedFigures(anomalies: readonly Anomaly[]): Set<string> {
  return new Set(
    anomalies.flatMap((a) =>
      a.kind === 'prefill-outlier'
        ? [`Prefill|${contextLabel(a.contextTokens!)}|1|4`]
        : a.kind === 'ttft-outlier'
          ? [`Sustained decode|${contextLabel(a.contextTokens!)}|${a.concurrency}|6`]
          : a.kind === 'throughput-drop'
            ? [`Sustained decode|${contextLabel(a.contextTokens!)}|${a.concurrency}|4`]
            : [],
    ),
  );
}

export const FLAG_LEGEND =
  '⚠ after a figure: it stands out (a prefill point off its neighbours, a TTFT far above the cells around it, or a throughput drop); see Anomalies.';
