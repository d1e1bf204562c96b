import { contextLabel, fmtInt, fmtMs, fmtS, fmtTokS } from '../format/index.js';
import type { DecodeCell, PrefillPoint } from '../results/schema.js';

// One finished cell in the live matrix: its total tok/s, in the same figures as the reports.
export function cellShort(c: DecodeCell): string {
  switch (c.status) {
    case 'Valid':
      return fmtTokS(c.totalTokensPerS);
    case 'Requests queued':
      return `${fmtTokS(c.totalTokensPerS)}q`;
    case 'Over capacity':
      return 'over';
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
