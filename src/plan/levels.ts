import { levelKey } from '../cell-rules.js';
import type { LevelLoad } from '../results/schema.js';

// The load levels a run measures (docs/workloads.md "How a run orders its levels"): per row (a context of the
// fixed workload, else the workload's one row), the closed levels of a workload other than fixed, then the rates
// given, then the search for the highest rate meeting the service level, or the trace once. Plain data: `plan`
// prints it, the estimate times it, the runner walks it.

export interface PlannedLevel {
  key: string; // levelKey(row, load): requests.jsonl's level, resume's
  load: LevelLoad;
  scheduleS: number; // the level's own time: a closed level's window, an open one's warm-up and window, a trace
}

export interface PlannedRow {
  row: string; // the context ("8192") for the fixed workload, else the workload's label
  contextTokens?: number; // the fixed workload's row
  levels: PlannedLevel[];
  // --find-rate: at most this many more levels, one window each, after the levels above.
  search?: { windows: number; start?: number; scheduleS: number };
}

export interface LevelsInput {
  rows: ReadonlyArray<{ row: string; contextTokens?: number }>;
  closed: readonly number[]; // concurrency levels of a workload other than fixed (its decode cells are the fixed one's)
  open?: {
    rates: readonly number[];
    arrival: Extract<LevelLoad, { model: 'open' }>['arrival'];
    burstiness?: number;
    maxInFlight?: number;
    search?: { windows: number };
  };
  trace?: { timeScale: number; spanMs: number };
  durationS: number;
  warmupS: number;
}

// A trace's window ends one mean gap after its last arrival, so each arrival stands for one gap's worth of time
// and the offered rate is the trace's own (docs/workloads.md "The window").
export function traceScheduleMs(offsetsMs: readonly number[]): number {
  const n = offsetsMs.length;
  if (n === 0) return 0;
  const span = offsetsMs[n - 1]! - offsetsMs[0]!;
  return n > 1 ? (span * n) / (n - 1) : span;
}

export function planLevels(input: LevelsInput): PlannedRow[] {
  const level = (row: string, load: LevelLoad, scheduleS: number): PlannedLevel => ({
    key: levelKey(row, load),
    load,
    scheduleS,
  });
  const o = input.open;
  const windowS = input.warmupS + input.durationS;
  return input.rows.map(({ row, contextTokens }) => {
    const levels = input.closed.map((n) => level(row, { model: 'closed', concurrency: n }, input.durationS));
    if (o && !o.search) for (const r of o.rates) levels.push(level(row, openLoad(r, o), windowS));
    if (input.trace)
      levels.push(
        level(row, { model: 'trace', timeScale: input.trace.timeScale }, input.trace.spanMs / 1000),
      );
    return {
      row,
      ...(contextTokens !== undefined ? { contextTokens } : {}),
      levels,
      ...(o?.search
        ? {
            search: {
              windows: o.search.windows,
              ...(o.rates[0] !== undefined ? { start: o.rates[0] } : {}),
              scheduleS: windowS,
            },
          }
        : {}),
    };
  });
}

type OpenInput = NonNullable<LevelsInput['open']>;

const openLoad = (rate: number, o: OpenInput): LevelLoad => ({
  model: 'open',
  rate,
  arrival: o.arrival,
  ...(o.burstiness !== undefined ? { burstiness: o.burstiness } : {}),
  ...(o.maxInFlight !== undefined ? { maxInFlight: o.maxInFlight } : {}),
});

/** The open level of a row at a rate, as the search measures it (its key and load as planLevels writes them). */
export function searchLevel(row: string, rate: number, o: OpenInput, scheduleS: number): PlannedLevel {
  const load = openLoad(rate, o);
  return { key: levelKey(row, load), load, scheduleS };
}
