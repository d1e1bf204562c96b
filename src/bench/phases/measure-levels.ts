import { rateVerdict } from '../../answer/levels.js';
import {
  closedLoopOf,
  rateSearchRecord,
  searchStart,
  searchState,
  type RateStep,
  type SearchStart,
} from '../../answer/rate-search.js';
import { searchStepKey } from '../../plan/estimate.js';
import { searchLevel, type PlannedLevel, type PlannedRow } from '../../plan/levels.js';
import type { LoadLevel, RateSearch } from '../../results/schema.js';
import { referenceFromLevels } from '../../stats/level-status.js';
import type { Checkpoint } from './checkpoint.js';
import type { CellEnv } from './measure-cell.js';
import { measureLoadLevel, type LevelEnv } from './measure-level.js';

// One row's load levels in the run's order (docs/workloads.md "How a run orders its levels"): its planned levels
// (closed levels of a workload, rates, a trace), then its rate search. Each finished level is saved at once, with
// its search step; a resumed run skips the levels the result holds and goes on with the search from its steps.

export interface LevelKeep {
  warn(w: string): void;
  level(level: LoadLevel, step: string): void; // saved: show it (`step`: its place in the plan's steps)
}

// The open-loop settings a search's levels share (from the plan's first open level of the row, or the config).
export type SearchLoad = Parameters<typeof searchLevel>[2];

/** false: interrupted. Throws the error that ends the run (a refusal no retry can fix, a server gone). */
export async function measureRow(
  env: CellEnv,
  lv: LevelEnv & { searchLoad?: SearchLoad },
  row: PlannedRow,
  cp: Checkpoint,
  keep: LevelKeep,
): Promise<boolean> {
  for (const l of row.levels) {
    if (env.stop.aborted) return false;
    if (cp.hasLevel(l.key)) continue;
    const level = await measureOne(env, lv, row, l, cp, keep);
    if (!level) return false;
    cp.addLevel(level);
    keep.level(level, l.key);
  }
  if (row.search && lv.searchLoad) return search(env, { ...lv, searchLoad: lv.searchLoad }, row, cp, keep);
  return true;
}

async function measureOne(
  env: CellEnv,
  lv: LevelEnv,
  row: PlannedRow,
  l: PlannedLevel,
  cp: Checkpoint,
  keep: LevelKeep,
): Promise<LoadLevel | undefined> {
  const reference = l.load.model === 'open' ? referenceFromLevels(cp.levels, row.row, l.load.rate) : null;
  const r = await measureLoadLevel(env, lv, row, l, reference);
  cp.log(r.sent);
  if ('interrupted' in r) return undefined;
  r.warnings.forEach(keep.warn);
  if (!('cell' in r)) throw r.fatal;
  if (r.fatal) {
    cp.addLevel(r.cell);
    throw r.fatal;
  }
  return r.cell;
}

// --find-rate on one row (src/answer/rate-search.ts): each step one level at the rate the state machine names.
async function search(
  env: CellEnv,
  lv: LevelEnv & { searchLoad: SearchLoad },
  row: PlannedRow,
  cp: Checkpoint,
  keep: LevelKeep,
): Promise<boolean> {
  const s = row.search!;
  const slo = lv.slo;
  const stored = cp.search(row.row);
  const start: SearchStart = stored
    ? { rate: stored.start, from: stored.startFrom }
    : searchStart({ given: s.start, closedLoop: closedLoopOf(cp.result, row.row, slo) });
  let steps: RateStep[] = stored?.steps.map((x) => ({ ...x })) ?? [];
  const record = (): RateSearch =>
    rateSearchRecord({ row: row.row, slo, start, steps, searchWindows: s.windows });
  for (;;) {
    const state = searchState(steps, { start: start.rate, searchWindows: s.windows });
    if (state.done) {
      if (!stored?.done || stored.steps.length !== steps.length) cp.saveSearch(record());
      return true;
    }
    if (env.stop.aborted) return false;
    const l = searchLevel(row.row, state.next!, lv.searchLoad, s.scheduleS);
    const known = cp.level(l.key);
    const level = known ?? (await measureOne(env, lv, row, l, cp, keep));
    if (!level) return false;
    steps = [...steps, { rate: state.next!, verdict: rateVerdict(level, slo), level: l.key }];
    if (known) cp.saveSearch(record());
    else cp.addLevel(level, record());
    keep.level(level, searchStepKey(row.row));
  }
}
