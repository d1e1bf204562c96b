import { mulberry32 } from '../rng.js';

// Seeded PRNG (mulberry32): deterministic prompts and test splits from one integer seed.
export type Rng = () => number; // [0, 1)

export const createRng = (seed: number): Rng => mulberry32(seed);

export { hashString } from '../rng.js';
