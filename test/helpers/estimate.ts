import { buildPlan } from '../../src/plan/plan.js';
import { estimateDuration } from '../../src/plan/estimate.js';
import { priorPrefillModel } from '../../src/plan/prefill-model.js';

// The steps and prior a run hands its progress view, for a plan of these contexts and concurrency levels.
export function estimateFor(contexts: number[], concurrency: number[], duration = 3) {
  const plan = buildPlan({ contexts, concurrency, maxOutput: 512, maxModelLen: 16384 });
  const est = estimateDuration(plan, { duration, prefillRepeats: 1 });
  return { steps: est.steps, prefillPrior: priorPrefillModel() };
}
