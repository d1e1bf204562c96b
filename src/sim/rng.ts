import { mulberry32 } from '../rng.js';

// Small seeded PRNG (mulberry32): deterministic schedules for tests and reproducible faults. Seed 0 maps to a
// fixed non-zero state, as it always has here (schedules recorded in tests depend on it).
export type Rng = () => number;

export const makeRng = (seed: number): Rng => mulberry32(seed >>> 0 || 0x9e3779b9);

export function mixSeed(seed: number, n: number): number {
  let h = (seed ^ Math.imul(n + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
