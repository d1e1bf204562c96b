import type { DecodeCell } from '../results/schema.js';
import type { CellFigures } from '../sim/what-if.js';

/** The level measured before this cell at its context (its slots' prompts still cached), 0 for the first. */
export function previousLevel(
  cells: ReadonlyArray<{ contextTokens: number; concurrency: number; status: string }>,
  c: { contextTokens: number; concurrency: number },
): number {
  const before = cells.filter(
    (x) => x.contextTokens === c.contextTokens && x.concurrency < c.concurrency && x.status === 'run',
  );
  return before.length ? Math.max(...before.map((x) => x.concurrency)) : 0;
}

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
    ...(f.rampTimedOut ? { rampTimedOut: true } : {}),
    avgActive: f.avgActive,
    completed: f.completed,
    outputTokens: f.outputTokens,
    measuredS: windowS,
    maxWaiting: f.maxWaiting,
  };
}
