import type { DecodeCell, PrefillPoint } from '../results/schema.js';
import { contextLabel } from '../plan/contexts.js';
import { fmtInt, fmtS } from '../report/format.js';

export function fmtTokS(v: number | null | undefined): string {
  if (v === null || v === undefined) return '-';
  return v >= 10_000
    ? `${(v / 1000).toFixed(1)}K`
    : v.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
}

export function fmtMs(v: number | null | undefined): string {
  return v === null || v === undefined ? '-' : `${Math.round(v).toLocaleString('en-US')} ms`;
}

export function fmtEta(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

// Short form for the live matrix.
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
