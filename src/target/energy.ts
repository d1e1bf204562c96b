import type { ServerSample } from '../results/schema.js';
import { averagePowerW } from './sample-stats.js';

export interface WindowEnergy {
  avgPowerW: number | null;
  joulesPerToken: number | null;
  tokensPerSPerW: number | null;
}

// Energy of a decode window: E = P̄ · t, per output token; efficiency = throughput / P̄.
export function joulesPerToken(avgPowerW: number, measuredS: number, outputTokens: number): number | null {
  if (!(avgPowerW > 0) || !(measuredS > 0) || !(outputTokens > 0)) return null;
  return (avgPowerW * measuredS) / outputTokens;
}

export function tokensPerSPerW(tokensPerS: number, avgPowerW: number): number | null {
  if (!(avgPowerW > 0) || !(tokensPerS >= 0)) return null;
  return tokensPerS / avgPowerW;
}

export function windowEnergy(
  samples: readonly ServerSample[],
  measuredS: number,
  outputTokens: number,
): WindowEnergy {
  const avg = averagePowerW(samples);
  if (avg === null) return { avgPowerW: null, joulesPerToken: null, tokensPerSPerW: null };
  return {
    avgPowerW: avg,
    joulesPerToken: joulesPerToken(avg, measuredS, outputTokens),
    tokensPerSPerW: measuredS > 0 ? tokensPerSPerW(outputTokens / measuredS, avg) : null,
  };
}
