import type { DecodeCell, ServerSample } from '../results/schema.js';
import { windowEnergy } from './energy.js';
import { summarizeSamples } from './sample-stats.js';

export type ServerCellFigures = Pick<
  DecodeCell,
  | 'maxRunning'
  | 'maxWaiting'
  | 'specAcceptanceLength'
  | 'cacheHitRatio'
  | 'avgPowerW'
  | 'joulesPerToken'
  | 'tokensPerSPerW'
>;

// Everything a decode cell takes from the server samples of its window, in one call for the runner.
export function serverCellFigures(
  samples: readonly ServerSample[],
  window: { measuredS: number; outputTokens: number },
): ServerCellFigures {
  const s = summarizeSamples(samples);
  const e = windowEnergy(samples, window.measuredS, window.outputTokens);
  return {
    maxRunning: s.maxRunning,
    maxWaiting: s.maxWaiting,
    specAcceptanceLength: s.specAcceptanceLength,
    cacheHitRatio: s.cacheHitRatio,
    avgPowerW: e.avgPowerW,
    joulesPerToken: e.joulesPerToken,
    tokensPerSPerW: e.tokensPerSPerW,
  };
}
