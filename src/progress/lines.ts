import { contextLabel, fmt2, fmtEta, fmtInt, fmtMs, fmtPct, fmtS, fmtTokS } from '../format/index.js';
import { plannedCountsText, toMeasure, type CellCounts } from '../plan/counts.js';
import type { DecodeCell, LoadLevel, PrefillPoint } from '../results/schema.js';
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
  const cells = s.concurrency.length
    ? `${s.contexts.length} contexts x ${s.concurrency.length} concurrency levels = ${plannedCountsText(s.counts)}`
    : '';
  const levels = s.levels ? levelsText(s.levels) : '';
  // A level past the server's capacity drains to the timeout, one within it at once: said, not guessed.
  const drain = s.levels?.drainS
    ? ` (a level whose requests outlast its window waits up to ${fmtEta(s.levels.drainS)} more for them)`
    : '';
  return `${s.resumed ? 'resuming' : 'run'} ${s.runId}: ${s.model}, ${[cells, levels].filter(Boolean).join('; ')}; about ${fmtEta(s.estimateS)}${drain}${s.prefillGuessed ? ' (prefill speed guessed until measured; the ETA corrects it)' : ''}`;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

// "4 load levels in 2 rows and a rate search per row (at most 8 windows each)".
function levelsText(l: NonNullable<ProgressStart['levels']>): string {
  const fixed = l.levels ? `${plural(l.levels, 'load level')} in ${plural(l.rows, 'row')}` : '';
  const search = l.searchWindows
    ? `${fixed ? 'and ' : ''}a rate search ${l.rows > 1 ? 'per row ' : ''}(at most ${l.searchWindows} windows${l.rows > 1 ? ' each' : ''})`
    : '';
  return [fixed, search].filter(Boolean).join(' ');
}

// One finished load level: "level 8K@2/s: Valid, offered 2.03 req/s, achieved 1.98, goodput 1.95 (96% met it), TTFT
// p50 120 ms p99 450 ms, lag p99 0.3 ms".
export function levelLine(l: LoadLevel): string {
  const head = `level ${l.key}: ${l.status}`;
  if (l.status === 'Failed') return `${head} (${l.error ?? l.evidence ?? 'error'})`;
  const goodput =
    l.goodput !== null ? `, goodput ${fmt2(l.goodput)} (${fmtPct(l.sloShare)} met the service level)` : '';
  return (
    // Three figures, not a ratio: achieved counts every completion inside the window, warm-up arrivals' too, so it
    // may pass the offered rate (docs/workloads.md "Figures of a load level").
    `${head}, offered ${fmt2(l.offeredRate)} req/s, achieved ${fmt2(l.achievedRate)}${goodput}, ` +
    `TTFT p50 ${fmtMs(l.ttftMs.p50)} p99 ${fmtMs(l.ttftMs.p99)}, lag p99 ${fmtMs(l.lag.p99Ms)}`
  );
}

// "5/13 measured": measured and checked cells, resumed ones included; skipped cells never count.
export const measuredSoFar = (n: CellCounts): string => `${n.done}/${toMeasure(n)} measured`;
