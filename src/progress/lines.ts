import { contextLabel, fmtEta, fmtInt, fmtMs, fmtS, fmtTokS } from '../format/index.js';
import { plannedCountsText, toMeasure, type CellCounts } from '../plan/counts.js';
import type { DecodeCell, PrefillPoint } from '../results/schema.js';
import type { ProgressStart } from './sink.js';

export const OVER_SHORT = 'over';

// One finished cell in the live matrix: its total tok/s, in the same figures as the reports.
export function cellShort(c: DecodeCell): string {
  switch (c.status) {
    case 'Valid':
      return fmtTokS(c.totalTokensPerS);
    case 'Requests queued':
      return `${fmtTokS(c.totalTokensPerS)}q`;
    case 'Over capacity':
      return OVER_SHORT;
    case 'Failed':
      return 'FAIL';
  }
}

export function cellLine(c: DecodeCell): string {
  const head = `decode ${contextLabel(c.contextTokens)} x${c.concurrency}: ${c.status}`;
  if (c.status === 'Over capacity') return head;
  if (c.status === 'Failed') return `${head} (${c.error ?? 'error'})`;
  return `${head}, ${fmtTokS(c.totalTokensPerS)} tok/s total, ${fmtTokS(c.perRequestTokensPerS)} tok/s per request, TTFT ${fmtMs(c.ttftMs)}, ${fmtInt(c.outputTokens ?? 0)} tokens in ${fmtS(c.measuredS ?? 0)}`;
}

export function prefillLine(p: PrefillPoint): string {
  const head = `prefill ${contextLabel(p.contextTokens)}: `;
  if (p.status !== 'Valid') return `${head}${p.status} (${p.error ?? 'error'})`;
  const flagged = p.repeats.some((r) => r.outlier) ? ' (outlier repeat flagged)' : '';
  return `${head}${fmtTokS(p.tokensPerS)} prompt tok/s, TTFT ${fmtMs(p.ttftMs)}${flagged}`;
}

// The run's first line: what it will measure, counted as `plan` counts it.
export function startLine(s: ProgressStart): string {
  return `${s.resumed ? 'resuming' : 'run'} ${s.runId}: ${s.model}, ${s.contexts.length} contexts x ${s.concurrency.length} concurrency levels = ${plannedCountsText(s.counts)}; about ${fmtEta(s.estimateS)}${s.prefillGuessed ? ' (prefill speed guessed until measured; the ETA corrects it)' : ''}`;
}

// "5/13 measured": measured and checked cells, resumed ones included; skipped cells never count.
export const measuredSoFar = (n: CellCounts): string => `${n.done}/${toMeasure(n)} measured`;
