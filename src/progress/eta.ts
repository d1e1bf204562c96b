import { stepSeconds, type EstimateStep } from '../plan/estimate.js';
import { decodeKey, prefillKey } from '../results/cell-key.js';
import {
  fitPrefillModel,
  prefillSeconds,
  type PrefillModel,
  type PrefillSample,
} from '../plan/prefill-model.js';

// The live ETA: the plan's steps, re-estimated with what the run has measured so far (the prefill model fitted
// to the finished prefill points, the cells' overhead beyond window and prefill). Within a step it only counts
// down: the step in progress contributes its estimate minus the time spent in it, never less than zero.

// A step is named by the request log's cell key (src/results/cell-key.ts), the connect request by 'connect', a load
// level by its key (a search's window by searchStepKey: its rate is chosen as it starts).
export type StepKey = string;
export const stepKey = (
  kind: EstimateStep['kind'],
  contextTokens: number,
  concurrency?: number,
  key?: string,
): StepKey =>
  kind === 'level'
    ? key!
    : kind === 'cell'
      ? decodeKey(contextTokens, concurrency!)
      : kind === 'prefill'
        ? prefillKey(contextTokens)
        : kind;

export interface EtaState {
  steps: readonly EstimateStep[];
  prior: PrefillModel;
  done: number; // steps[0..done) are finished
  stepStartMs: number; // when steps[done] began
  samples: PrefillSample[];
  residualsS: number[]; // finished cells: actual - estimate without any overhead correction
}

export function startEta(steps: readonly EstimateStep[], prior: PrefillModel, nowMs: number): EtaState {
  return { steps, prior, done: 0, stepStartMs: nowMs, samples: [], residualsS: [] };
}

// A step finished at nowMs (earlier unfinished steps, e.g. the connect request, are folded into it).
export function finishStep(state: EtaState, key: StepKey, nowMs: number): EtaState {
  const i = state.steps.findIndex(
    (s, j) => j >= state.done && stepKey(s.kind, s.contextTokens, s.concurrency, s.key) === key,
  );
  if (i < 0) return state;
  const step = state.steps[i]!;
  const actualS = (nowMs - state.stepStartMs) / 1000;
  const residualsS =
    step.kind === 'cell' && step.fixedS > 0
      ? [...state.residualsS, actualS - stepSeconds(step, modelNow(state))]
      : state.residualsS;
  return { ...state, done: i + 1, stepStartMs: nowMs, residualsS };
}

export function addPrefillSample(state: EtaState, sample: PrefillSample): EtaState {
  return { ...state, samples: [...state.samples, sample] };
}

export const modelNow = (state: EtaState): PrefillModel => fitPrefillModel(state.samples, state.prior);

// Seconds left: the steps not begun at their corrected estimate, plus what the current one has left.
export function etaSeconds(state: EtaState, nowMs: number): number {
  const model = modelNow(state);
  const extra = state.residualsS.length
    ? state.residualsS.reduce((t, r) => t + r, 0) / state.residualsS.length
    : 0;
  const est = (s: EstimateStep) =>
    s.kind === 'cell' && s.fixedS > 0 ? Math.max(0, stepSeconds(s, model) + extra) : stepSeconds(s, model);
  let left = 0;
  for (let i = state.done; i < state.steps.length; i++) {
    const e = est(state.steps[i]!);
    left += i === state.done ? Math.max(0, e - (nowMs - state.stepStartMs) / 1000) : e;
  }
  return left;
}

// The full-window (or any) prefill point's predicted seconds under what has been measured.
export const predictPrefillS = (state: EtaState, tokens: number): number =>
  prefillSeconds(modelNow(state), tokens);
