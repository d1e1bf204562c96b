import { type CellRepeat, type CellStatus, type DecodeCell } from '../results/schema.js';
import { mergeRepeatFigure } from '../stats/repeats.js';
import { mergeWindowRequests } from '../stats/slo.js';
import { r3, ri } from './cell-result.js';
import { CELL_STATUSES } from '../cell-rules.js';

// One cell measured R times (--repeats) becomes one cell: figures are the means of the repeats that measured
// something, intervals span the noise between them (src/stats/repeats.ts), counts add up, and the status is the
// worst a repeat showed among those that ran, so a queue seen once is not averaged away. Stored to 1e-3, as
// one window's figures are.
const FIGURES = ['totalTokensPerS', 'perRequestTokensPerS', 'ttftMs', 'tbtMs'] as const;
const SEVERITY = (s: CellStatus): number => CELL_STATUSES.indexOf(s); // Valid < queued < over < Failed

export function repeatOf(c: DecodeCell): CellRepeat {
  return {
    status: c.status,
    totalTokensPerS: c.totalTokensPerS,
    perRequestTokensPerS: c.perRequestTokensPerS,
    ttftMs: c.ttftMs,
    tbtMs: c.tbtMs,
    measuredS: c.measuredS,
    ...(c.error !== undefined ? { error: c.error } : {}),
  };
}

export function mergeCellRepeats(cells: readonly DecodeCell[]): DecodeCell {
  if (cells.length === 0) throw new RangeError('mergeCellRepeats needs at least one cell');
  if (cells.length === 1) return cells[0]!;
  const measured = cells.filter((c) => c.status !== 'Failed');
  const repeats = cells.map(repeatOf);
  if (measured.length === 0) return { ...cells[cells.length - 1]!, repeats };
  const base = measured[measured.length - 1]!;
  const out: DecodeCell = { ...base, repeats, intervals: { ...base.intervals } };
  for (const f of FIGURES) {
    const m = mergeRepeatFigure(
      measured.map((c) => c[f]),
      measured.map((c) => c.intervals?.[f]),
    );
    out[f] = r3(m.figure);
    out.intervals![f] = ri(m.interval);
  }
  const worst = measured.reduce((w, c) => (SEVERITY(c.status) > SEVERITY(w.status) ? c : w), measured[0]!);
  out.status = worst.status;
  if (worst.queueEvidence !== undefined) out.queueEvidence = worst.queueEvidence;
  // A stream held back in one window marks the merged timings too (as a queue seen once is kept).
  const held = measured.find((c) => c.streamBatching?.batched);
  if (held) out.streamBatching = held.streamBatching!;
  out.completed = sumOrNull(measured.map((c) => c.completed));
  out.outputTokens = sumOrNull(measured.map((c) => c.outputTokens));
  out.measuredS = r3(sumOrNull(measured.map((c) => c.measuredS)));
  out.requestsSent = measured.reduce((a, c) => a + (c.requestsSent ?? 0), 0);
  const stale = measured.reduce((a, c) => a + (c.staleReconnects ?? 0), 0);
  if (stale > 0) out.staleReconnects = stale;
  else delete out.staleReconnects;
  const errors = mergeErrors(measured); // the same repeats as every other count
  if (errors) out.errors = errors;
  const requests = mergeWindowRequests(measured.map((c) => c.windowRequests));
  if (requests) out.windowRequests = requests;
  if (cells[0]!.startedAt !== undefined) out.startedAt = cells[0]!.startedAt;
  return out;
}

function mergeErrors(cells: readonly DecodeCell[]): DecodeCell['errors'] {
  const all: Record<string, number> = {};
  for (const c of cells)
    for (const [k, n] of Object.entries(c.errors ?? {})) all[k] = (all[k] ?? 0) + (n ?? 0);
  return Object.keys(all).length ? (all as DecodeCell['errors']) : undefined;
}

function sumOrNull(xs: readonly (number | null)[]): number | null {
  return xs.some((x) => x === null) ? null : xs.reduce<number>((a, x) => a + x!, 0);
}
