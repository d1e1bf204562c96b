import { cellName, contextLabel } from '../format/index.js';
import type { Range, RunEntry } from './run-entry.js';
import { isMeasured } from '../cell-rules.js';

// One cell ("8192x4") or prefill point ("p8192") followed across runs, oldest first.

// The figures a stream held back on the way makes the proxy's, not the server's (docs/method.md).
export const HELD_FIGURES: ReadonlySet<string> = new Set(['perRequestTokensPerS', 'ttftMs', 'tbtMs']);

export const DECODE_FIGURES = {
  totalTokensPerS: { label: 'Total tok/s', unit: 'tok/s', higherIsBetter: true },
  perRequestTokensPerS: { label: 'Per-request tok/s', unit: 'tok/s', higherIsBetter: true },
  ttftMs: { label: 'TTFT (median)', unit: 'ms', higherIsBetter: false },
  tbtMs: { label: 'Time between tokens (median)', unit: 'ms', higherIsBetter: false },
} as const;
export const PREFILL_FIGURES = {
  tokensPerS: { label: 'Prompt tok/s', unit: 'tok/s', higherIsBetter: true },
  ttftMs: { label: 'TTFT', unit: 'ms', higherIsBetter: false },
} as const;

export type CellRef =
  | { kind: 'decode'; key: string; contextTokens: number; concurrency: number }
  | { kind: 'prefill'; key: string; contextTokens: number };

export function parseCellRef(s: string | undefined | null): CellRef | undefined {
  const d = /^(\d+)x(\d+)$/.exec(s ?? '');
  if (d) return { kind: 'decode', key: s!, contextTokens: Number(d[1]), concurrency: Number(d[2]) };
  const p = /^p(\d+)$/.exec(s ?? '');
  if (p) return { kind: 'prefill', key: p[1]!, contextTokens: Number(p[1]) };
  return undefined;
}

export function cellRefLabel(c: CellRef): string {
  return c.kind === 'decode' ? cellName(c) : `prefill ${contextLabel(c.contextTokens)}`;
}

export function figuresOf(
  c: CellRef,
): Record<string, { label: string; unit: string; higherIsBetter: boolean }> {
  return c.kind === 'decode' ? DECODE_FIGURES : PREFILL_FIGURES;
}

/** Every cell and prefill point the runs have, as [URL value, label]: decode cells first. */
export function cellChoices(runs: readonly RunEntry[]): Array<[string, string]> {
  const decode = new Set<string>();
  const prefill = new Set<string>();
  for (const e of runs) {
    for (const k of Object.keys(e.decode)) decode.add(k);
    for (const k of Object.keys(e.prefill)) prefill.add(k);
  }
  const d = [...decode]
    .map((k) => parseCellRef(k)!)
    .filter(Boolean)
    .sort(
      (a, b) =>
        a.contextTokens - b.contextTokens ||
        (a as { concurrency: number }).concurrency - (b as { concurrency: number }).concurrency,
    );
  const p = [...prefill].map(Number).sort((a, b) => a - b);
  return [
    ...d.map((c): [string, string] => [c.key, cellRefLabel(c)]),
    ...p.map((ctx): [string, string] => [`p${ctx}`, `prefill ${contextLabel(ctx)}`]),
  ];
}

export interface HistoryPoint {
  run: RunEntry;
  status: string | null; // null: the run did not measure this cell
  value: number | null;
  interval?: Range;
  held?: true; // the figure is the timing of something between client and server, not the server's
}

export function historyPoints(runs: readonly RunEntry[], cell: CellRef, figure: string): HistoryPoint[] {
  return [...runs]
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id))
    .map((run) => {
      const f = cell.kind === 'decode' ? run.decode[cell.key] : run.prefill[cell.key];
      if (!f) return { run, status: null, value: null };
      const value = (f as unknown as Record<string, number | null>)[figure] ?? null;
      // Over capacity and Failed cells have no figure worth a point, whatever a partial window left behind.
      const measured = isMeasured(f.status);
      const interval = (f.iv as Record<string, Range> | undefined)?.[figure];
      const held = measured && 'held' in f && f.held === true && HELD_FIGURES.has(figure);
      return {
        run,
        status: f.status,
        value: measured ? value : null,
        ...(measured && value !== null && interval ? { interval } : {}),
        ...(held ? { held: true as const } : {}),
      };
    });
}
