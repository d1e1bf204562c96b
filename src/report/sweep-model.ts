import { serviceLevelFor, serviceLevelLine } from '../answer/answer.js';
import { capacities, type ContextCapacity } from '../answer/capacity.js';
import type { DecodeCell, RunResult, ServiceLevel } from '../results/schema.js';
import type { SweepFile, SweepRunStatus } from '../results/sweep-schema.js';
import type { Interval } from '../stats/interval.js';
import { DEFAULT_SERVICE_LEVEL, formatServiceLevel } from '../stats/slo.js';
import { compareFigure, type Comparison } from '../stats/verdict.js';
import { contextLabel, fmtTokS } from '../format/index.js';
import { runLabel } from './compare-model.js';
import { cellMap, sortedUnique } from './model.js';
import { cellKey, isMeasured } from '../cell-rules.js';

// What every sweep renderer shows (docs/sweep.md "The report"): per configuration and context the users it serves
// at once under the service level (the answer's capacity, docs/method.md "Capacity under a service level"), the
// configurations side by side, per cell the best and its margin over the runner-up with `compare`'s verdict
// (docs/method.md "Verdicts"; a cell where requests queued is worse than one where they did not), the Pareto
// frontier of per-request tok/s (the median request's, as every report prints it) against total tok/s (per GPU
// where every run knows its GPU count), and a line in words per context: most users first, then total tok/s.

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

// 'runner-up queues': the best ran every request at once and the runner-up queued them, whatever their tok/s.
export type CellOutcome =
  'faster' | 'no significant difference' | 'no interval' | 'only one' | 'runner-up queues';

export interface CellVerdict {
  contextTokens: number;
  concurrency: number;
  candidates: Candidate[]; // measured: those that ran every request at once first, each part fastest first
  outcome: CellOutcome;
  comparison?: Comparison; // the best (B) against the runner-up (A), both queued or neither: change >= 0
}

// The users a configuration serves at once at a context under the service level: the answer's capacity.
export interface ConfigUsers {
  config: number;
  users: number; // the largest concurrency that meets the level; 0 where none does
  atLeast: boolean; // every level measured met it: the capacity may lie above
  capacity: ContextCapacity;
}

export interface ContextUsers {
  contextTokens: number;
  byConfig: ConfigUsers[]; // the configurations with a result at this context, in letter order
  leaders: number[]; // the configurations that serve the most users (several: a tie on users)
  users: number; // how many they serve
  // Between tied leaders, the cell at their level decides (the best there, by the rule of every cell).
  tieBreak?: CellVerdict;
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
  slo: ServiceLevel; // the level the users are counted under: --slo, else the runs' own, else the default
  sloFrom: 'given' | 'result' | 'default' | 'mixed'; // 'mixed': the runs hold different levels, each judged by its own
  users: ContextUsers[]; // contexts ascending
  contextLines: string[];
}

export interface SweepModelOptions {
  slo?: ServiceLevel | undefined; // --slo: judge every run by this level instead of its own
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

// Candidates in rank order: those that ran every request at once before those that queued (worse at that level
// whatever their tok/s: their users waited), each part fastest first.
export function rankCandidates(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort((a, b) => Number(a.queued) - Number(b.queued) || b.value - a.value);
}

// The best measured configuration of a cell against the runner-up: one that queued is worse than one that did not;
// two alike are judged as `compare` judges B against A.
export function cellVerdict(candidates: readonly Candidate[]): Pick<CellVerdict, 'outcome' | 'comparison'> {
  const [best, second] = candidates;
  if (!best || !second) return { outcome: 'only one' };
  if (!best.queued && second.queued) return { outcome: 'runner-up queues' };
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

// One level for the words: --slo, else the runs' own where they agree (a sweep's runs share its options), else
// each run is judged by its own and the words say so.
function sweepServiceLevel(
  configs: readonly SweepConfig[],
  given: ServiceLevel | undefined,
): Pick<SweepModel, 'slo' | 'sloFrom'> {
  const levels = configs.flatMap((c) => (c.result ? [serviceLevelFor(c.result, given)] : []));
  const first = levels[0] ?? { slo: given ?? DEFAULT_SERVICE_LEVEL, sloFrom: given ? 'given' : 'default' };
  const same = levels.every((l) => formatServiceLevel(l.slo) === formatServiceLevel(first.slo));
  return { slo: first.slo, sloFrom: same ? first.sloFrom : 'mixed' };
}

function contextUsers(
  configs: readonly SweepConfig[],
  cells: readonly CellVerdict[],
  ctx: number,
  given: ServiceLevel | undefined,
): ContextUsers {
  const byConfig: ConfigUsers[] = [];
  configs.forEach((c, i) => {
    if (!c.result) return;
    const capacity = capacities(c.result, serviceLevelFor(c.result, given).slo).find(
      (x) => x.contextTokens === ctx,
    );
    if (!capacity) return;
    const users = capacity.capacity?.cell.concurrency ?? 0;
    byConfig.push({ config: i, users, atLeast: capacity.atLeast, capacity });
  });
  const users = Math.max(0, ...byConfig.map((u) => u.users));
  const leaders = users > 0 ? byConfig.filter((u) => u.users === users).map((u) => u.config) : [];
  const at = cells.find((v) => v.contextTokens === ctx && v.concurrency === users);
  const among = at?.candidates.filter((c) => leaders.includes(c.config)) ?? [];
  const tieBreak =
    leaders.length > 1 && at && among.length > 1
      ? { ...at, candidates: among, ...cellVerdict(among) }
      : undefined;
  return { contextTokens: ctx, byConfig, leaders, users, ...(tieBreak ? { tieBreak } : {}) };
}

export function sweepModel(
  file: SweepFile,
  results: ReadonlyMap<string, RunResult>,
  opts: SweepModelOptions = {},
): SweepModel {
  const configs = sweepConfigs(file, results);
  const all = configs.flatMap((c) => c.result?.decode ?? []);
  const contexts = sortedUnique(all.map((c) => c.contextTokens));
  const concurrency = sortedUnique(all.map((c) => c.concurrency));
  const cells = cellVerdicts(configs, contexts, concurrency);
  const level = sweepServiceLevel(configs, opts.slo);
  const withResults = configs.filter((c) => c.result);
  const perGpu = withResults.length > 0 && withResults.every((c) => c.gpus !== undefined);
  const points = paretoPoints(configs, cells, perGpu);
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
    ...level,
    users: contexts.map((ctx) => contextUsers(configs, cells, ctx, opts.slo)),
    contextLines: [],
  };
  model.contextLines = contexts.map((ctx) => contextLine(model, ctx));
  return model;
}

// A configuration per run of the sweep, lettered as compare letters runs, with its server and its result's cells.
function sweepConfigs(file: SweepFile, results: ReadonlyMap<string, RunResult>): SweepConfig[] {
  const labels = shortLabels(file.runs.map((r) => r.name));
  return file.runs.map((r, i) => {
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
}

// Per cell some configuration measured (contexts ascending, then concurrency): its candidates ranked and the verdict.
function cellVerdicts(
  configs: readonly SweepConfig[],
  contexts: readonly number[],
  concurrency: readonly number[],
): CellVerdict[] {
  const cells: CellVerdict[] = [];
  for (const ctx of contexts)
    for (const n of concurrency) {
      const candidates = rankCandidates(
        configs
          .map((c, i) => candidateOf(c.cells.get(cellKey(ctx, n)), i))
          .filter((x): x is Candidate => x !== undefined),
      );
      if (candidates.length === 0) continue;
      cells.push({ contextTokens: ctx, concurrency: n, candidates, ...cellVerdict(candidates) });
    }
  return cells;
}

function candidateOf(cell: DecodeCell | undefined, config: number): Candidate | undefined {
  if (!measured(cell)) return undefined;
  return {
    config,
    value: cell.totalTokensPerS!,
    interval: cell.intervals?.totalTokensPerS ?? null,
    perRequest: cell.perRequestTokensPerS,
    queued: cell.status === 'Requests queued',
  };
}

// y is the figure the run's own reports print for the cell; a cell without one is left off (docs/sweep.md).
function paretoPoints(
  configs: readonly SweepConfig[],
  cells: readonly CellVerdict[],
  perGpu: boolean,
): ParetoPoint[] {
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
  return points;
}

// A configuration's run status as every sweep report says it.
export const STATUS_WORD: Record<string, string> = {
  complete: 'complete',
  failed: 'FAILED',
  running: 'stopped mid-run',
  interrupted: 'interrupted',
  pending: 'not run',
};

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

const usersText = (n: number) => `${n} user${n === 1 ? '' : 's'}`;
const names = (m: SweepModel, configs: readonly number[]): string => {
  const all = configs.map((i) => configName(m, i));
  return all.length < 2 ? (all[0] ?? '') : `${all.slice(0, -1).join(', ')} and ${all.at(-1)}`;
};

// The level the users are counted under, in a line, as the answer names it.
export function serviceLevelText(m: SweepModel): string {
  if (m.sloFrom === 'mixed')
    return "Users at once under each run's own service level (the runs hold different ones; --slo judges all by one).";
  return `${serviceLevelLine({ slo: m.slo, sloFrom: m.sloFrom })}; the users at once are counted under it.`;
}

// "at least 8 users" where every leader met every level measured.
function usersCount(u: ContextUsers): string {
  const atLeast = u.byConfig.filter((x) => u.leaders.includes(x.config)).every((x) => x.atLeast);
  return `${atLeast ? 'at least ' : ''}${u.users}`;
}

// Who serves the most users under the level; between tied leaders, the cell at their level.
function usersWords(m: SweepModel, u: ContextUsers): string {
  if (u.users === 0) return 'no configuration meets the service level at any level measured';
  if (u.leaders.length === 1) {
    const rest = u.byConfig.filter((x) => x.config !== u.leaders[0]);
    const next = Math.max(0, ...rest.map((x) => x.users));
    const after =
      rest.length === 0
        ? ''
        : next === 0
          ? ' (no other meets it)'
          : ` (${names(
              m,
              rest.filter((x) => x.users === next).map((x) => x.config),
            )}: ${next})`;
    return `${configName(m, u.leaders[0]!)} serves the most users under the service level: ${usersCount(u)}${after}`;
  }
  const head = `${names(m, u.leaders)} serve the most users under the service level: ${usersCount(u)} each`;
  const t = u.tieBreak;
  if (!t) return head;
  const at = usersText(t.concurrency);
  const best = configName(m, t.candidates[0]!.config);
  switch (t.outcome) {
    case 'runner-up queues':
      return `${head}, but at ${at} ${configName(m, t.candidates[1]!.config)} queues requests and ${best} does not`;
    case 'faster':
      return `${head}; at ${at} ${best} gives more total tok/s, ${marginText(m, t)}`;
    case 'no interval':
      return `${head}; at ${at} ${best} gives more total tok/s, ${marginText(m, t)} (no interval: significance unknown)`;
    case 'no significant difference':
      return `${head}, and at ${at} their total tok/s do not differ: a tie`;
    case 'only one':
      return head;
  }
}

// The best of a cell against its runner-up, as a clause: ", +23% ± 4% over np=4".
function marginWords(m: SweepModel, v: CellVerdict): string {
  const other = v.candidates[1] && configName(m, v.candidates[1].config);
  switch (v.outcome) {
    case 'faster':
      return `, ${marginText(m, v)}`;
    case 'only one':
      return ', the only configuration that measured it';
    case 'no interval':
      return `, ${marginText(m, v)} (no interval: significance unknown)`;
    case 'runner-up queues':
      return `, where ${other} queues requests`;
    case 'no significant difference':
      return `, not significantly more than ${other}`;
  }
}

// One sentence per context: who serves the most users under the service level, then where the most total tok/s
// is and by how much, and what one user sees.
export function contextLine(m: SweepModel, ctx: number): string {
  const cells = m.cells.filter((v) => v.contextTokens === ctx);
  const at = `at ${contextLabel(ctx)}`;
  const top = [...cells].sort((a, b) => b.candidates[0]!.value - a.candidates[0]!.value)[0];
  if (!top) return `${at}, no configuration measured a cell.`;
  const u = m.users.find((x) => x.contextTokens === ctx);
  let line = u ? `${at}, ${usersWords(m, u)}; the most total tok/s` : `${at}, the most total tok/s`;
  const best = top.candidates[0]!;
  line += `: ${configName(m, best.config)}, ${fmtTokS(best.value)} tok/s at ${usersText(top.concurrency)}`;
  // the tie between the leaders was broken at this very cell, by the same two: said once
  const said =
    u?.tieBreak?.concurrency === top.concurrency &&
    u.tieBreak.candidates[0]!.config === best.config &&
    u.tieBreak.candidates[1]!.config === top.candidates[1]?.config;
  if (!said) line += marginWords(m, top);
  const one = cells.find((v) => v.concurrency === 1);
  if (one && one !== top) {
    if (one.outcome === 'no significant difference') line += '; at one user the configurations do not differ';
    else if (one.outcome === 'faster')
      line += `; at one user ${configName(m, one.candidates[0]!.config)} is fastest, ${marginText(m, one)}`;
  }
  return line + '.';
}

// The configuration a cell names best beyond noise (bold, green, starred): faster, or the only one not queued.
export function isBestOf(v: CellVerdict | undefined, config: number): boolean {
  return (v?.outcome === 'faster' || v?.outcome === 'runner-up queues') && v.candidates[0]!.config === config;
}

// A configuration's users under the level at a context, for a table: "8", "8+" (every level measured met it).
export function usersShort(m: SweepModel, ctx: number, config: number): string | undefined {
  const x = m.users.find((u) => u.contextTokens === ctx)?.byConfig.find((b) => b.config === config);
  return x ? `${x.users}${x.atLeast ? '+' : ''}` : undefined;
}

// The cell's verdict in a few words: "C +23%±4%", "≈ B" (within noise), "B, A Q" (A queued, B did not).
export function bestShort(m: SweepModel, v: CellVerdict): string {
  const best = m.configs[v.candidates[0]!.config]!.letter;
  const c = v.comparison;
  if (v.outcome === 'only one') return `${best} only`;
  if (v.outcome === 'no significant difference') return `≈ ${best}`;
  if (v.outcome === 'runner-up queues') return `${best}, ${m.configs[v.candidates[1]!.config]!.letter} Q`;
  const size = c?.change == null ? '' : ` +${pct(c.change)}`;
  const half =
    c?.changeHalfWidth == null ? (v.outcome === 'no interval' ? '?' : '') : `±${pct(c.changeHalfWidth)}`;
  return `${best}${size}${half}`;
}

// The cell's verdict said once, where there is room (Markdown): "B +50% ± 4% over np=2", "B (np=2 queues)".
export function bestLong(m: SweepModel, v: CellVerdict): string {
  const best = m.configs[v.candidates[0]!.config]!.letter;
  const second = v.candidates[1];
  if (v.outcome === 'faster') return `${best} ${marginText(m, v)}`;
  if (v.outcome === 'no interval') return `${best} ${marginText(m, v)} (no interval)`;
  if (v.outcome === 'runner-up queues') return `${best} (${configName(m, second!.config)} queues)`;
  if (v.outcome === 'no significant difference')
    return `≈ ${best} (${configName(m, second!.config)} within noise)`;
  return `${best} only`;
}
