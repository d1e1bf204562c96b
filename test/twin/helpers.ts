import { loadProfile } from '../../src/sim/profiles.js';
import { simulatedResult } from './sim-result.js';

// The demo engine (maxNumSeqs 8, KV 64K tokens, speculative decoding) measured over a small matrix in virtual
// time: every status appears, and a twin's parameters are known to compare with.
export const DEMO_GRID = {
  contexts: [1024, 2048, 4096, 8192],
  concurrency: [1, 2, 4, 8, 16],
  prefillContexts: [1024, 2048, 4096, 8192],
  maxOutput: 512,
  windowS: 5,
};

export const demoProfile = () => loadProfile('demo');
export const demoMeasured = () => simulatedResult(demoProfile(), DEMO_GRID);
export { planOfResult as planOf } from '../../src/twin/choose.js';
