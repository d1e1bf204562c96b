// What to run to decide the levels quick left too close to call (docs/quick.md): those levels again, with the same
// answers and a window long enough for the count test to clear the share at the proportion seen. Pure.

import type { Answer } from '../answer/answer.js';
import type { CellJudgement } from '../answer/capacity.js';
import { requestsToDecide } from '../stats/slo.js';

export interface DecideRun {
  concurrency: number[];
  duration: number; // seconds per window
  maxOutput: number; // the answers measured: the count of requests a window holds depends on them
}

const SLACK = 1.25; // a proportion seen on few requests moves: aim past the bound
const UNKNOWN_FACTOR = 4; // no request ended in the window, or a proportion at the share itself
export const LONGEST_DECIDE_S = 300;

// Seconds of window that give the requests the count test needs, at the rate this level's windows judged them (a
// queued level judges the requests its seats end: as many again in a window twice as long).
function windowToDecide(j: CellJudgement, share: number, ran: { duration: number; repeats: number }): number {
  const s = j.share;
  const seconds = ran.duration * ran.repeats;
  const need = s && s.basis === 'requests' ? requestsToDecide(s.met, s.judged, share) : undefined;
  if (need === undefined || !s?.judged) return seconds * UNKNOWN_FACTOR;
  return ((seconds * need) / s.judged) * SLACK;
}

/** The levels too close to call in any context, with the window that decides them all; none when all decided. */
export function decideRun(
  a: Answer,
  ran: { duration: number; repeats: number; maxOutput: number },
): DecideRun | undefined {
  const open = a.contexts.flatMap((c) => c.undecided);
  if (!open.length) return undefined;
  const longest = Math.max(...open.map((j) => windowToDecide(j, a.slo.share, ran)));
  const duration = Math.min(LONGEST_DECIDE_S, Math.max(Math.ceil(ran.duration) + 1, Math.ceil(longest)));
  return {
    concurrency: [...new Set(open.map((j) => j.cell.concurrency))].sort((x, y) => x - y),
    duration,
    maxOutput: ran.maxOutput,
  };
}
