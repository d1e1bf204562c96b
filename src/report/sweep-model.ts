import type { DecodeCell, RunResult } from '../results/schema.js';
import type { SweepFile, SweepRunStatus } from '../results/sweep-schema.js';
import type { Interval } from '../stats/interval.js';
import { compareFigure, type Comparison } from '../stats/verdict.js';
import { contextLabel, fmtTokS } from '../format/index.js';
import { runLabel } from './compare-model.js';
import { cellMap, sortedUnique } from './model.js';
import { cellKey, isMeasured } from '../cell-rules.js';

// What every sweep renderer shows (docs/sweep.md "The report"): the configurations side by side, per cell the
// fastest and its margin over the runner-up with `compare`'s verdict (docs/method.md "Verdicts"), the Pareto
// frontier of per-request tok/s (the median request's, as every report prints it) against total tok/s (per GPU
// where every run knows its GPU count), and a line in words per context.

export interface SweepConfig {
  letter: string; // A, B, C... as compare labels runs
  key: string;
  name: string;
  label: string; // the name without the values every configuration shares
  status: SweepRunStatus;
  reason?: string;
  logTail?: string[];
  log?: string; // server log, relative to the sweep folder
  command?: string; // redacted
  linked: string[];
  result?: RunResult;
  cells: Map<string, DecodeCell>;
  gpus?: number;
}

export interface Candidate {
  config: number; // index into configs
  value: number; // total tok/s
  interval: Interval | null;
  perRequest: number | null; // the cell's per-request tok/s (median request, docs/method.md)
  queued: boolean;
}

export type CellOutcome = 'faster' | 'no significant difference' | 'no interval' | 'only one';

export interface CellVerdict {
  contextTokens: number;
  concurrency: number;
  candidates: Candidate[]; // measured, fastest first
  outcome: CellOutcome;
  comparison?: Comparison; // the fastest (B) against the runner-up (A): change >= 0
}

export interface ParetoPoint {
  config: number;
  contextTokens: number;
  concurrency: number;
  x: number; // total tok/s, per GPU when perGpu
  y: number; // per-request tok/s, the median request's (the cell's own figure)
  queued: boolean;
  frontier: boolean;
}

export interface SweepModel {
  title: string;
  file: SweepFile;
  configs: SweepConfig[];
  contexts: number[];
  concurrency: number[];
  cells: CellVerdict[]; // contexts ascending, then concurrency; only cells some configuration measured
  perGpu: boolean; // Pareto x is per GPU
  pareto: ParetoPoint[];
  unplaced: number; // measured cells without a per-request figure, so not on the Pareto chart
  contextLines: string[];
}

const measured = (c: DecodeCell | undefined): c is DecodeCell =>
  !!c && isMeasured(c.status) && c.totalTokensPerS !== null && c.totalTokensPerS > 0;

// "np=4 c=64K" less the words every configuration shares ("profile=tiny"), unless nothing would be left.
export function shortLabels(names: readonly string[]): string[] {
  const words = names.map((n) => n.split(' '));
  const shared = new Set(words[0]?.filter((w) => w.includes('=') && words.every((ws) => ws.includes(w))));
  return words.map((ws, i) => {
    const kept = ws.filter((w) => !shared.has(w)).join(' ');
    return names.length > 1 && kept ? kept : names[i]!;
  });
}

// The fastest measured configuration of a cell against the runner-up, judged as `compare` judges B against A.
export function cellVerdict(candidates: readonly Candidate[]): Pick<CellVerdict, 'outcome' | 'comparison'> {
  const [best, second] = candidates;
  if (!best || !second) return { outcome: 'only one' };
  const comparison = compareFigure(
    { value: second.value, interval: second.interval },
    { value: best.value, interval: best.interval },
    'higher-is-better',
  );
  const outcome: CellOutcome =
    comparison.verdict === 'faster'
      ? 'faster'
      : comparison.verdict === 'no interval'
        ? 'no interval'
        : 'no significant difference';
  return { outcome, comparison };
}

// Points no other point beats on both axes (higher total and higher per-request tok/s).
export function paretoFrontier<T extends { x: number; y: number }>(points: readonly T[]): Set<T> {
  const sorted = [...points].sort((a, b) => b.x - a.x || b.y - a.y);
  const out = new Set<T>();
  let bestY = -Infinity;
  for (const p of sorted)
    if (p.y > bestY) {
      out.add(p);
      bestY = p.y;
    }
  return out;
}

export function sweepModel(file: SweepFile, results: ReadonlyMap<string, RunResult>): SweepModel {
  const labels = shortLabels(file.runs.map((r) => r.name));
  const configs: SweepConfig[] = file.runs.map((r, i) => {
    const result = results.get(r.key);
    const server = file.servers.find((s) => s.key === r.server);
    const gpus = result?.hardware.gpuCount ?? undefined;
    return {
      letter: runLabel(i),
      key: r.key,
      name: r.name,
      label: labels[i]!,
      status: r.status,
      ...(r.reason ? { reason: r.reason } : {}),
      ...(r.logTail ? { logTail: r.logTail } : {}),
      ...(server ? { log: server.log } : {}),
      ...(server?.command ? { command: server.command } : {}),
      linked: r.linked,
      ...(result ? { result } : {}),
      cells: result ? cellMap(result) : new Map<string, DecodeCell>(),
      ...(gpus ? { gpus } : {}),
    };
  });
  const all = configs.flatMap((c) => c.result?.decode ?? []);
  const contexts = sortedUnique(all.map((c) => c.contextTokens));
  const concurrency = sortedUnique(all.map((c) => c.concurrency));
  const cells: CellVerdict[] = [];
  for (const ctx of contexts)
    for (const n of concurrency) {
      const candidates = configs
        .map((c, i): Candidate | undefined => {
          const cell = c.cells.get(cellKey(ctx, n));
          if (!measured(cell)) return undefined;
          return {
            config: i,
            value: cell.totalTokensPerS!,
            interval: cell.intervals?.totalTokensPerS ?? null,
            perRequest: cell.perRequestTokensPerS,
            queued: cell.status === 'Requests queued',
          };
        })
        .filter((x): x is Candidate => x !== undefined)
        .sort((a, b) => b.value - a.value);
      if (candidates.length === 0) continue;
      cells.push({ contextTokens: ctx, concurrency: n, candidates, ...cellVerdict(candidates) });
    }
  const withResults = configs.filter((c) => c.result);
  const perGpu = withResults.length > 0 && withResults.every((c) => c.gpus !== undefined);
  // y is the figure the run's own reports print for the cell; a cell without one is left off (docs/sweep.md).
  const points: ParetoPoint[] = cells.flatMap((v) =>
    v.candidates.flatMap((c) =>
      c.perRequest === null
        ? []
        : [
            {
              config: c.config,
              contextTokens: v.contextTokens,
              concurrency: v.concurrency,
              x: perGpu ? c.value / configs[c.config]!.gpus! : c.value,
              y: c.perRequest,
              queued: c.queued,
              frontier: false,
            },
          ],
    ),
  );
  const frontier = paretoFrontier(points);
  for (const p of points) p.frontier = frontier.has(p);
  const model: SweepModel = {
    title: file.title ?? `Sweep ${file.sweepId}`,
    file,
    configs,
    contexts,
    concurrency,
    cells,
    perGpu,
    pareto: points,
    unplaced: cells.reduce((n, v) => n + v.candidates.length, 0) - points.length,
    contextLines: [],
  };
  model.contextLines = contexts.map((ctx) => contextLine(model, ctx));
  return model;
}

export const configName = (m: SweepModel, i: number): string => m.configs[i]!.label;

// What the Pareto frontier plots, said the same way in every format (docs/sweep.md "The report").
export function paretoIntro(m: SweepModel): string {
  const on = m.pareto.filter((p) => p.frontier).length;
  const left = m.unplaced ? `; ${m.unplaced} without a per-request figure left off` : '';
  return (
    `Per-request tok/s (the median request's, as each run's report prints it) against total tok/s${m.perGpu ? ' per GPU' : ''}: ` +
    `no other configuration and cell beats these on both (${on} of ${m.pareto.length} measured cells${left}).`
  );
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

// "+23% ± 4% over np=4" (or without the ± where there is no interval).
export function marginText(m: SweepModel, v: CellVerdict): string {
  const c = v.comparison;
  const other = v.candidates[1];
  if (!c || c.change === null || !other) return '';
  const size =
    c.changeHalfWidth === null ? `+${pct(c.change)}` : `+${pct(c.change)} ± ${pct(c.changeHalfWidth)}`;
  return `${size} over ${configName(m, other.config)}`;
}

// One sentence per context: where the most total tok/s is, by how much, and what one user sees.
export function contextLine(m: SweepModel, ctx: number): string {
  const cells = m.cells.filter((v) => v.contextTokens === ctx);
  const at = `at ${contextLabel(ctx)}`;
  const top = [...cells].sort((a, b) => b.candidates[0]!.value - a.candidates[0]!.value)[0];
  if (!top) return `${at}, no configuration measured a cell.`;
  const best = top.candidates[0]!;
  const users = `${fmtTokS(best.value)} tok/s at ${top.concurrency} user${top.concurrency === 1 ? '' : 's'}`;
  let line = `${at}, ${configName(m, best.config)} gives the most total tok/s (${users})`;
  if (top.outcome === 'faster') line += `, ${marginText(m, top)}`;
  else if (top.outcome === 'only one') line += ', the only configuration that measured it';
  else if (top.outcome === 'no interval')
    line += `, ${marginText(m, top)} (no interval: significance unknown)`;
  else line += `, but not significantly more than ${configName(m, top.candidates[1]!.config)}`;
  const one = cells.find((v) => v.concurrency === 1);
  if (one && one !== top) {
    if (one.outcome === 'no significant difference') line += '; at one user the configurations do not differ';
    else if (one.outcome === 'faster')
      line += `; at one user ${configName(m, one.candidates[0]!.config)} is fastest, ${marginText(m, one)}`;
  }
  return line + '.';
}

// The cell's verdict in a few words: "C +23% ± 4%", "≈ (within noise)".
export function bestShort(m: SweepModel, v: CellVerdict): string {
  const best = m.configs[v.candidates[0]!.config]!.letter;
  const c = v.comparison;
  if (v.outcome === 'only one') return `${best} only`;
  if (v.outcome === 'no significant difference') return `≈ ${best}`;
  const size = c?.change == null ? '' : ` +${pct(c.change)}`;
  const half =
    c?.changeHalfWidth == null ? (v.outcome === 'no interval' ? '?' : '') : `±${pct(c.changeHalfWidth)}`;
  return `${best}${size}${half}`;
}
