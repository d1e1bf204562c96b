import { findAnomalies } from './anomalies.js';
import { flagLegends, flaggedFigures } from './flags.js';
import { MEASUREMENT_HEADERS, measurementRows, singleUserNote } from './model.js';
import type { RunResult } from '../results/schema.js';
import { shortStatus, type CellStatus } from '../cell-rules.js';

// Short headers for a terminal; the full names are in the md, HTML and CSV reports.
const SHORT = [
  'Phase',
  'Ctx',
  'N',
  'Status',
  'Total',
  'Per req',
  'TTFT',
  'TBT',
  'Active',
  'Done',
  'Output',
  'For',
];
// Which columns stay when the width is short, most wanted first.
const PRIORITY = [1, 2, 0, 4, 6, 3, 5, 7, 10, 11, 8, 9];
const PHASE: Record<string, string> = { Prefill: 'prefill', 'Sustained decode': 'decode' };

// The All measurements table as text: as many columns as the width holds, the dropped ones named.
export function measurementLines(r: RunResult, width: number): { lines: string[]; notes: string[] } {
  const anomalies = findAnomalies(r);
  const flagged = flaggedFigures(anomalies);
  const rows = measurementRows(r).map((row) => {
    const key = row.slice(0, 3).join('|');
    return row.map((v, i) => {
      const text = i === 0 ? (PHASE[v] ?? v) : i === 3 ? shortStatus(v as CellStatus) : v;
      return flagged.has(`${key}|${i}`) ? `${text} ⚠` : text;
    });
  });
  const widths = SHORT.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const room = width - 2;
  const chosen = new Set<number>();
  let used = 0;
  for (const i of PRIORITY) {
    const w = widths[i]! + (chosen.size ? 2 : 0);
    if (used + w > room) break;
    chosen.add(i);
    used += w;
  }
  const cols = [...chosen].sort((a, b) => a - b);
  const left = (i: number) => i === 0 || i === 1 || i === 3;
  const line = (cells: string[]) =>
    '  ' +
    cols.map((i) => (left(i) ? cells[i]!.padEnd(widths[i]!) : cells[i]!.padStart(widths[i]!))).join('  ');
  const lines = [line(SHORT), ...rows.map(line)].map((l) => l.trimEnd());
  const dropped = SHORT.map((_, i) => i).filter((i) => !chosen.has(i));
  const notes = [
    'Latencies are medians; Total is output tok/s across all simultaneous requests.',
    ...(dropped.length
      ? [
          `Not shown at this width: ${dropped.map((i) => MEASUREMENT_HEADERS[i]).join(', ')} (see --format md or csv).`,
        ]
      : []),
    ...flagLegends(anomalies),
    ...singleUserNote(r),
  ];
  return { lines, notes };
}
