import type { DecodeCell } from '../results/schema.js';
import type { CellFigures } from '../sim/what-if.js';

/** A decode cell as the result records it, from the what-if engine's figures. */
export function decodeCellFrom(
  contextTokens: number,
  concurrency: number,
  f: CellFigures,
  windowS: number,
): DecodeCell {
  return {
    contextTokens,
    concurrency,
    status: f.status,
    totalTokensPerS: f.totalTokensPerS,
    perRequestTokensPerS: f.perRequestTokensPerS,
    ttftMs: f.ttftMs,
    tbtMs: f.tbtMs,
    ttft: f.ttft,
    chunkGapMs: f.chunkGapMs,
    ...(f.specAcceptanceLength !== null ? { specAcceptanceLength: f.specAcceptanceLength } : {}),
    avgActive: f.avgActive,
    completed: f.completed,
    outputTokens: f.outputTokens,
    measuredS: windowS,
    maxWaiting: f.maxWaiting,
  };
}
