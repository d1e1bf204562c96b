import type { DecodeCell } from './schema.js';

// A decode cell with no figures: skipped (Over capacity) or failed before it measured anything.
export function emptyCell(
  contextTokens: number,
  concurrency: number,
  status: DecodeCell['status'],
): DecodeCell {
  return {
    contextTokens,
    concurrency,
    status,
    totalTokensPerS: null,
    perRequestTokensPerS: null,
    ttftMs: null,
    tbtMs: null,
    avgActive: null,
    completed: null,
    outputTokens: null,
    measuredS: null,
  };
}
