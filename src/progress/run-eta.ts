import type { DecodeCell, PrefillPoint } from '../results/schema.js';
import { addPrefillSample, etaSeconds, finishStep, startEta, stepKey, type EtaState } from './eta.js';
import type { ProgressStart } from './sink.js';

// The ETA fed by the progress events, on the wall clock (the views share it).
export interface RunEta {
  start(s: ProgressStart): void;
  prefillDone(p: PrefillPoint): void;
  cellDone(c: DecodeCell): void;
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
      if (p.status === 'Valid')
        for (const r of p.repeats)
          if (r.promptTokens > 0 && r.ttftMs > 0)
            state = addPrefillSample(state, { tokens: r.promptTokens, seconds: r.ttftMs / 1000 });
      state = finishStep(state, stepKey('prefill', p.contextTokens), now());
    },
    cellDone(c) {
      if (state) state = finishStep(state, stepKey('cell', c.contextTokens, c.concurrency), now());
    },
    seconds() {
      return state ? etaSeconds(state, now()) : 0;
    },
  };
}
