import type { Plan } from './plan.js';

export interface EstimateInput {
  duration: number; // window length
  prefillRepeats: number;
  rampS?: number; // expected ramp per cell; default 2 s
  settleS?: number; // expected settle per cell; default 1 s
  prefillTokensPerS?: number; // default 10,000 (RTX seed's order of magnitude); the sim or a probe may know better
}

export interface Estimate {
  totalS: number;
  prefillS: number; // cold prefills: repeats, and every slot prompt's first warm-up
  decodeS: number; // windows + ramps + settles of the cells that run
  cellsToRun: number;
}

// Order-of-magnitude ETA: cold prefill of every prompt sent once, plus ramp + window + settle per cell.
export function estimateDuration(plan: Plan, input: EstimateInput): Estimate {
  const rate = input.prefillTokensPerS ?? 10_000;
  const rampS = input.rampS ?? 2;
  const settleS = input.settleS ?? 1;
  let prefillS = 0;
  for (const p of plan.prefill)
    if (p.status === 'run') prefillS += (input.prefillRepeats * p.contextTokens) / rate;
  let decodeS = 0;
  let cellsToRun = 0;
  for (const c of plan.contexts) {
    const runN = plan.cells
      .filter((x) => x.contextTokens === c && x.status === 'run')
      .map((x) => x.concurrency);
    if (runN.length === 0) continue;
    // Slot 1 was prefilled cold by the prefill point; slots 2..maxN are prefilled once during warm-up.
    prefillS += ((Math.max(...runN) - 1) * c) / rate;
    cellsToRun += runN.length;
    decodeS += runN.length * (input.duration + rampS + settleS);
  }
  return { totalS: prefillS + decodeS, prefillS, decodeS, cellsToRun };
}
