import { contextLabel } from '../format/index.js';

// A warning the runner stores that a report also says as a flag of its own, with the figures (the repeats'
// `outlier` marks): written here once, so the report can recognise it and say it once (docs/report.md
// "Anomaly rules").
export const prefillRepeatWarning = (contextTokens: number): string =>
  `prefill ${contextLabel(contextTokens)}: a repeat differs from the median by more than 25% (flagged as outlier)`;
