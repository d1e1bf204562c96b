// An agent's clock against the coordinator's (docs/distributed.md "Clocks"), NTP-style: the agent stamps t0 when
// it sends, the coordinator t1 when the request arrives and t2 when it answers, the agent t3 when the answer
// arrives. Pure: the exchange itself is the link's (agent.ts).
import type { ClockOffset } from '../runner.js';

export interface TimeSample {
  t0: number; // agent clock: sent
  t1: number; // coordinator clock: received
  t2: number; // coordinator clock: answered
  t3: number; // agent clock: answer received
}

// Samples per estimate: of ~20 round trips the fastest is the one least delayed by queues on either side.
export const OFFSET_SAMPLES = 20;

export function sampleOffset(s: TimeSample): { offsetMs: number; rttMs: number } {
  return {
    offsetMs: (s.t1 - s.t0 + (s.t2 - s.t3)) / 2,
    rttMs: Math.max(0, s.t3 - s.t0 - (s.t2 - s.t1)),
  };
}

/** The sample with the smallest round trip; undefined without samples. */
export function bestOffset(samples: readonly TimeSample[]): ClockOffset | undefined {
  let best: ClockOffset | undefined;
  let bestRtt = Infinity;
  for (const s of samples) {
    const { offsetMs, rttMs } = sampleOffset(s);
    if (!(rttMs < bestRtt)) continue;
    bestRtt = rttMs;
    best = { offsetMs, uncertaintyMs: rttMs / 2, atMs: (s.t0 + s.t3) / 2 };
  }
  return best;
}

// The offset at agent time t: the line through the estimates before and after the cell (a clock that drifts at
// a steady rate is followed exactly; extrapolated past either end), the one estimate when there is one.
export function offsetAt(before: ClockOffset, after: ClockOffset | undefined, t: number): number {
  if (!after || after.atMs === before.atMs) return before.offsetMs;
  const slope = (after.offsetMs - before.offsetMs) / (after.atMs - before.atMs);
  return before.offsetMs + slope * (t - before.atMs);
}

// What the interpolation is worth: each end's own uncertainty, the larger one (the line between two points known
// to ±u is known to ±u between them).
export const offsetUncertainty = (before: ClockOffset, after: ClockOffset | undefined): number =>
  Math.max(before.uncertaintyMs, after?.uncertaintyMs ?? 0);

/** A function from agent time to coordinator time. */
export function toCoordinatorTime(
  before: ClockOffset,
  after: ClockOffset | undefined,
): (t: number) => number {
  return (t) => t + offsetAt(before, after, t);
}

// When an offset's uncertainty is worth a flag: an edge of the window moved by u shifts at most the tokens of u at
// each end, 2u / window of the cell's tokens; above 0.1% of the window the flag says so (15 ms at 30 s, against
// the 0.05-1 ms a LAN gives).
export const UNCERTAINTY_WINDOW_SHARE = 0.0005;
export const uncertaintyLimitMs = (windowMs: number): number => UNCERTAINTY_WINDOW_SHARE * windowMs;
