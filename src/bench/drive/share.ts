import { BenchError } from '../../errors.js';

// Which sessions an executor drives (docs/distributed.md "Sessions", docs/workloads.md "Sessions"): every `step`-th
// session from `first` (1-based), the level's sessions dealt round robin. A share split again over P parts is P
// shares of the same form, so a level spread over agents and each agent's worker threads stays one rule, session s
// on executor (s - 1) mod K, and the share of a level of millions of arrivals is two numbers.
export interface Share {
  first: number;
  step: number;
}

export const ALL: Share = { first: 1, step: 1 };

/** How many of `total` sessions a share holds. */
export const shareSize = (share: Share, total: number): number =>
  share.first > total ? 0 : Math.floor((total - share.first) / share.step) + 1;

/** The sessions of a share, in order. */
export function* sessionsIn(share: Share, total: number): Generator<number> {
  for (let s = share.first; s <= total; s += share.step) yield s;
}

/** A share dealt round robin over at most `parts` parts, none empty (fewer when the share holds fewer sessions). */
export function splitShare(share: Share, parts: number, total: number): Share[] {
  const n = Math.max(1, Math.min(parts, shareSize(share, total)));
  return Array.from({ length: n }, (_, i) => ({ first: share.first + i * share.step, step: share.step * n }));
}

/** A cap of `max` in flight split over `parts` executors as their sessions are: the parts sum to max, none 0. */
export function splitCap(max: number, parts: number): number[] {
  if (max < parts)
    throw new BenchError(
      'USAGE',
      `--max-in-flight ${max} is below the ${parts} executors the level runs on; each holds a part of the cap.`,
      { hint: `Raise --max-in-flight to at least ${parts}, or use fewer --workers or --agents.` },
    );
  return Array.from({ length: parts }, (_, i) => Math.floor(max / parts) + (i < max % parts ? 1 : 0));
}
