import { DEFAULT_SEARCH_WINDOWS } from '../answer/rate-search.js';
import { trafficOf, type Traffic } from '../config/traffic.js';
import { BenchError } from '../errors.js';
import type { LoadConfig } from '../results/schema.js';
import { fmtS } from '../format/index.js';
import { traceSchedule } from '../load/arrivals.js';
import { fitsModelLen } from '../plan/capacity.js';
import { DEFAULT_CONCURRENCY } from '../plan/contexts.js';
import { planLevels, traceScheduleMs, type PlannedRow } from '../plan/levels.js';
import type { Plan } from '../plan/plan.js';
import { loadWorkload, readSchedule } from '../workloads/read.js';
import type { LoadedWorkload } from '../workloads/requests.js';
import { workloadLabel } from '../workloads/spec.js';
import type { RunSettings } from './settings.js';

// A run's traffic with its files read (docs/workloads.md): the workload's lines (a length file, a Mooncake trace)
// and a --trace schedule, read and checked once, before anything is sent; then the load levels of each row.

export interface RunTraffic extends Traffic {
  loaded: LoadedWorkload;
  timestampsMs?: number[]; // --trace: its timestamps in time order
}

export type TrafficSettings = Parameters<typeof trafficOf>[0];

export async function readTraffic(s: TrafficSettings): Promise<RunTraffic> {
  const schedule = s.trace !== undefined ? await readSchedule(s.trace) : undefined;
  const t = trafficOf(s, schedule?.kind);
  const loaded = await loadWorkload(t.workload);
  return { ...t, loaded, ...(schedule ? { timestampsMs: schedule.timestampsMs } : {}) };
}

// The fixed workload's closed loop is the plan's cells; every other traffic is load levels (src/plan/levels.ts).
export const measuresCells = (t: Traffic): boolean => t.closedLoop && t.workload.kind === 'fixed';

/** The concurrency levels a run measures: the fixed workload's cells', or a workload's closed levels'. */
export function runConcurrency(t: Traffic, plan: Plan, given: number[] | undefined): number[] {
  if (t.workload.kind === 'fixed') return plan.concurrency;
  return t.closedLoop ? [...new Set(given?.length ? given : DEFAULT_CONCURRENCY)].sort((a, b) => a - b) : [];
}

/** The load levels of each row, in the run's order (none for the fixed workload's closed loop alone). */
export function levelRows(
  t: RunTraffic,
  plan: Plan,
  s: Pick<RunSettings, 'concurrency' | 'duration' | 'warmup' | 'maxOutput'>,
): PlannedRow[] {
  const fixed = t.workload.kind === 'fixed';
  const load = t.load;
  if (fixed && load.model === 'closed') return [];
  const rows = fixed
    ? plan.contexts
        .filter((c) => fitsModelLen(c, s.maxOutput, plan.maxModelLen))
        .map((c) => ({ row: String(c), contextTokens: c }))
    : [{ row: workloadLabel(t.workload) }];
  if (rows.length === 0)
    throw new BenchError(
      'CONTEXT_TOO_LONG',
      `no context of --contexts fits the server's max model length ${plan.maxModelLen} with ${s.maxOutput} output tokens`,
      { hint: 'No prompt was sent: give shorter --contexts (or a smaller --max-output).' },
    );
  let trace: { timeScale: number; spanMs: number } | undefined;
  if (load.model === 'trace') {
    const spanMs = traceScheduleMs(traceSchedule(t.timestampsMs ?? [], load.timeScale));
    if (spanMs <= s.warmup * 1000)
      throw new BenchError(
        'USAGE',
        `the trace's schedule lasts ${fmtS(spanMs / 1000)} at --time-scale ${load.timeScale}, no longer than the ${s.warmup} s --warmup: no arrival would be measured`,
        { hint: 'Lower --warmup (--warmup 0 measures the whole trace), or replay it slower (--time-scale).' },
      );
    trace = { timeScale: load.timeScale, spanMs };
  }
  return planLevels({
    rows,
    closed: fixed ? [] : runConcurrency(t, plan, s.concurrency),
    ...(load.model === 'open' ? { open: openLevelsOf(load) } : {}),
    ...(trace ? { trace } : {}),
    durationS: s.duration,
    warmupS: s.warmup,
  });
}

/** An open loop's levels as the plan and the search build them: rates, arrivals, cap, the search's bound. */
export function openLevelsOf(load: Extract<LoadConfig, { model: 'open' }>): OpenLevels {
  return {
    rates: load.rates,
    arrival: load.arrival,
    ...(load.burstiness !== undefined ? { burstiness: load.burstiness } : {}),
    ...(load.maxInFlight !== undefined ? { maxInFlight: load.maxInFlight } : {}),
    ...(load.findRate ? { search: { windows: load.searchWindows ?? DEFAULT_SEARCH_WINDOWS } } : {}),
  };
}
type OpenLevels = NonNullable<Parameters<typeof planLevels>[0]['open']>;
