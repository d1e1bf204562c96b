import { mulberry32 } from '../rng.js';

// Seeded PRNG (mulberry32): deterministic prompts and test splits from one integer seed.
export type Rng = () => number; // [0, 1)

export const createRng = (seed: number): Rng => mulberry32(seed);

/** Stable 32-bit hash of a string (FNV-1a), to derive seeds from run ids. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
