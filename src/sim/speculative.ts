import type { Rng } from './rng.js';

// Draft tokens are accepted one after another with probability p (stopping at the first rejection), so a step
// yields 1..k+1 tokens with mean (1 - p^(k+1)) / (1 - p). Solve p for the configured mean by bisection.
export function acceptProbability(k: number, meanTokens: number): number {
  const mean = (p: number) => (p >= 1 ? k + 1 : (1 - p ** (k + 1)) / (1 - p));
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (mean(mid) < meanTokens) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export function drawSpecTokens(rng: Rng, k: number, p: number): number {
  let n = 1;
  while (n <= k && rng() < p) n++;
  return n;
}
