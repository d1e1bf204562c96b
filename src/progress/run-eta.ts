import type { DecodeCell, PrefillPoint } from '../results/schema.js';
import { addPrefillSample, etaSeconds, finishStep, startEta, stepKey, type EtaState } from './eta.js';
import type { ProgressStart } from './sink.js';
import { prefillSamples } from '../plan/prefill-model.js';

// The ETA fed by the progress events, on the wall clock (the views share it).
export interface RunEta {
  start(s: ProgressStart): void;
  prefillDone(p: PrefillPoint): void;
  cellDone(c: DecodeCell): void;
  levelDone(key: string): void; // a level's key, or a search's step (searchStepKey)
  seconds(): number;
}

export function runEta(now: () => number = Date.now): RunEta {
  let state: EtaState | undefined;
  return {
    start(s) {
      state = startEta(s.steps, s.prefillPrior, now());
    },
    prefillDone(p) {
      if (!state) return;
      for (const sample of prefillSamples([p])) state = addPrefillSample(state, sample);
      state = finishStep(state, stepKey('prefill', p.contextTokens), now());
    },
    cellDone(c) {
      if (state) state = finishStep(state, stepKey('cell', c.contextTokens, c.concurrency), now());
    },
    levelDone(key) {
      if (state) state = finishStep(state, key, now());
    },
    seconds() {
      return state ? etaSeconds(state, now()) : 0;
    },
  };
}
