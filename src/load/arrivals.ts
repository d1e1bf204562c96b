// When an open loop's requests arrive (docs/workloads.md "Load models"): seeded arrival processes over a window,
// as offsets in ms from the window's start. The same seed, row and rate give the same arrivals on every machine.
import { BenchError } from '../errors.js';
import { exponential, gammaVariate, hashString, mulberry32 } from '../rng.js';
import { ARRIVAL_KINDS, type ArrivalKind } from '../cell-rules.js';

export { ARRIVAL_KINDS, type ArrivalKind };

export interface ArrivalProcess {
  kind: ArrivalKind;
  /** Requests per second (λ). */
  rate: number;
  /** Gamma only: the shape B of the gaps (mean 1/λ, coefficient of variation 1/√B; B = 1 is Poisson). */
  burstiness?: number;
}

// An open level holds its whole schedule in memory: past this many arrivals a rate is a mistake of units.
export const MAX_ARRIVALS = 5_000_000;

/** The seed of one level's arrivals: the run's seed, the row and the rate (a level's arrivals never shift when
 * another level is added or measured first). */
export const arrivalSeed = (runSeed: number, row: string, rate: number): number =>
  hashString(`${runSeed}|${row}|${rate}`);

/**
 * Arrival offsets (ms, ascending) in [0, horizonMs). Poisson and gamma: the first arrival one gap after the start,
 * each next one a gap later (exponential; gamma of shape B and scale 1/(λB)). Constant: at 0, 1/λ, 2/λ, ...,
 * each computed from its index, so the gaps are exact and do not drift.
 */
export function arrivalOffsets(p: ArrivalProcess, horizonMs: number, seed: number): number[] {
  if (!(p.rate > 0) || !Number.isFinite(p.rate))
    throw new BenchError('USAGE', `arrival rate ${p.rate} req/s: a rate must be a positive number`);
  const shape = p.burstiness ?? 1;
  if (p.kind === 'gamma' && !(shape > 0 && Number.isFinite(shape)))
    throw new BenchError('USAGE', `burstiness ${shape}: it must be a positive number (1 is Poisson)`);
  const expected = (p.rate * horizonMs) / 1000;
  if (expected > MAX_ARRIVALS)
    throw new BenchError(
      'USAGE',
      `${p.rate} req/s over ${horizonMs / 1000} s is ${Math.round(expected)} arrivals, past ${MAX_ARRIVALS}`,
      { hint: 'Lower the rate or the duration.' },
    );
  const meanGapMs = 1000 / p.rate;
  const out: number[] = [];
  if (p.kind === 'constant') {
    for (let i = 0; i * meanGapMs < horizonMs; i++) out.push(i * meanGapMs);
    return out;
  }
  const rng = mulberry32(seed);
  const gap =
    p.kind === 'gamma' && shape !== 1
      ? () => (gammaVariate(rng, shape) / shape) * meanGapMs
      : () => exponential(rng) * meanGapMs;
  // Bounded: a gap is positive except with probability 2^-32 a draw, so the loop ends near `expected` arrivals.
  for (let t = gap(); t < horizonMs && out.length <= MAX_ARRIVALS; t += gap()) out.push(t);
  return out;
}

/**
 * A trace's schedule: offsets (ms) from its first timestamp, replayed `timeScale` times faster (2 halves every gap,
 * as the sim's --time-scale), in the order given (the trace reader sorts by timestamp).
 */
export function traceSchedule(timestampsMs: readonly number[], timeScale = 1): number[] {
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new BenchError(
      'USAGE',
      `--time-scale ${timeScale}: it must be a positive number (2 replays twice as fast)`,
    );
  if (timestampsMs.length === 0) return [];
  let first = Infinity;
  for (const t of timestampsMs) if (t < first) first = t;
  return timestampsMs.map((t) => (t - first) / timeScale);
}
