import type { LoadLevel, RateSearch, RateVerdict, RunResult, ServiceLevel } from '../results/schema.js';
import type { SloVerdict } from '../stats/slo.js';
import { capacities, ladder } from './capacity.js';
import { judgeLevel, type LevelJudgement } from './levels.js';
import { reqS } from './words.js';

// The search for the highest arrival rate meeting the service level (docs/workloads.md "The answer in requests per
// second"), as a pure state machine: given the steps so far, the next rate to measure or why it is done. The runner
// measures each rate as one window and stores the steps (result.rateSearch), so a resumed run goes on from them.

export const SEARCH_RATIO = 1.1; // done when the highest meeting and the lowest failing are within 10%
export const DEFAULT_SEARCH_WINDOWS = 8; // --search-windows
export const DEFAULT_START_RATE = 1; // req/s, where nothing says more

export interface RateStep {
  rate: number; // req/s
  verdict: RateVerdict;
  level?: string; // the level's key (levelKey)
}

export interface SearchStart {
  rate: number;
  from: RateSearch['startFrom'];
}

// A rate to measure, to 3 significant digits: the level's key and the reports read "2.83 req/s", not
// 2.8284271247461903, and a bisection step moves a rate by at least 2.4%, far past the 0.5% rounding.
export const roundRate = (r: number): number => Number(r.toPrecision(3));

/** Where the search starts: the first of --rates, else the closed loop's capacity as a rate (users at once over
 * their mean E2E in seconds: the arrival rate that keeps that many busy), else 1 req/s. */
export function searchStart(o: {
  given?: number | undefined;
  closedLoop?: { users: number; meanE2eMs: number } | undefined;
}): SearchStart {
  if (o.given !== undefined && o.given > 0) return { rate: o.given, from: 'given' };
  const c = o.closedLoop;
  if (c && c.users > 0 && c.meanE2eMs > 0)
    return { rate: roundRate((c.users * 1000) / c.meanE2eMs), from: 'closed loop' };
  return { rate: DEFAULT_START_RATE, from: 'default' };
}

export interface SearchState {
  done: boolean;
  next?: number; // the rate to measure next, while not done
  highestMeeting: number | null; // the highest rate that met the level below every rate that did not
  lowestFailing: number | null; // the lowest rate that did not (fails, or too close to call)
  tooClose: number[]; // rates too close to call, counted as not meeting
  clientBound?: number; // the rate the client could not offer on schedule
  reason?: string; // why it is done, in words
}

/**
 * The next step of the search: start at `start`; double while each rate meets the level (halve while the first
 * fail it); then bisect at the geometric mean of the highest rate meeting it and the lowest not meeting it; done
 * when those are within 10% or after `searchWindows` steps. A step too close to call counts as not meeting; a
 * Client-bound one ends the search: no higher rate can be offered.
 */
export function searchState(
  steps: readonly RateStep[],
  o: { start: number; searchWindows?: number | undefined },
): SearchState {
  const max = o.searchWindows ?? DEFAULT_SEARCH_WINDOWS;
  const tooClose = steps.filter((s) => s.verdict === 'too close to call').map((s) => s.rate);
  let hi: number | null = null;
  for (const s of steps)
    if ((s.verdict === 'fails' || s.verdict === 'too close to call') && (hi === null || s.rate < hi))
      hi = s.rate;
  let lo: number | null = null;
  for (const s of steps)
    if (s.verdict === 'meets' && (hi === null || s.rate < hi) && (lo === null || s.rate > lo)) lo = s.rate;
  const base = { highestMeeting: lo, lowestFailing: hi, tooClose };
  const bound = steps.find((s) => s.verdict === 'client-bound');
  if (bound)
    return {
      ...base,
      done: true,
      clientBound: bound.rate,
      reason: `the client could not send ${reqS(bound.rate)} on schedule (Client-bound), so it cannot offer that rate or more`,
    };
  if (steps.length === 0) return { ...base, done: false, next: o.start };
  const close =
    hi !== null && tooClose.includes(hi) ? ` (${reqS(hi)} too close to call, counted as not meeting it)` : '';
  if (lo !== null && hi !== null && hi / lo <= SEARCH_RATIO)
    return { ...base, done: true, reason: `${reqS(lo)} and ${reqS(hi)} are within 10%${close}` };
  if (steps.length >= max)
    return {
      ...base,
      done: true,
      reason:
        hi === null
          ? `every rate of ${max} windows met it (--search-windows ${max})`
          : lo === null
            ? `no rate of ${max} windows met it (--search-windows ${max})`
            : `stopped after ${max} windows, ${reqS(lo)} to ${reqS(hi)} apart by more than 10% (--search-windows ${max})${close}`,
    };
  const next =
    hi === null ? roundRate(lo! * 2) : lo === null ? roundRate(hi / 2) : roundRate(Math.sqrt(lo * hi));
  return { ...base, done: false, next };
}

/** The search as result.rateSearch stores it. */
export function rateSearchRecord(o: {
  row: string;
  slo: ServiceLevel;
  start: SearchStart;
  steps: readonly RateStep[];
  searchWindows?: number | undefined;
}): RateSearch {
  const s = searchState(o.steps, { start: o.start.rate, searchWindows: o.searchWindows });
  return {
    row: o.row,
    slo: o.slo,
    start: o.start.rate,
    startFrom: o.start.from,
    steps: o.steps.map((x) => ({ ...x })),
    highestMeeting: s.highestMeeting,
    lowestFailing: s.lowestFailing,
    done: s.done,
    ...(s.reason ? { reason: s.reason } : {}),
  };
}

/**
 * A row's closed loop as the search's start reads it (searchStart's closedLoop): its users at once under the level
 * and their typical end-to-end time. A context's decode cells: the capacity cell's concurrency, its TTFT plus the
 * output cap at its per-request rate (every answer is the cap under ignore_eos); a workload's closed levels: the
 * capacity level's concurrency and its median E2E. Undefined where the row has no closed loop meeting the level.
 */
export function closedLoopOf(
  r: Pick<RunResult, 'decode' | 'levels' | 'predicted' | 'config'>,
  row: string,
  slo: ServiceLevel,
): { users: number; meanE2eMs: number } | undefined {
  if (/^\d+$/.test(row)) {
    const cell = capacities(r, slo).find((c) => c.contextTokens === Number(row))?.capacity?.cell;
    if (!cell || !cell.perRequestTokensPerS) return undefined;
    const e2e = (cell.ttftMs ?? 0) + (r.config.maxOutput * 1000) / cell.perRequestTokensPerS;
    return { users: cell.concurrency, meanE2eMs: e2e };
  }
  const concurrency = (l: LoadLevel) => (l.load.model === 'closed' ? l.load.concurrency : 0);
  const judged = (r.levels ?? [])
    .filter((l) => l.row === row && l.load.model === 'closed')
    .sort((a, b) => concurrency(a) - concurrency(b))
    .map((l) => judgeLevel(l, slo))
    .filter((j): j is LevelJudgement & { verdict: SloVerdict } => j.verdict !== 'not judged');
  const level = ladder(judged).capacity?.level;
  const e2e = level?.e2eMs.p50;
  return level && e2e ? { users: concurrency(level), meanE2eMs: e2e } : undefined;
}
