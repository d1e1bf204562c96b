import type { TargetInfo } from '../../src/target/types.js';

// What a probe finds on a bare OpenAI-compatible server: one model, no metrics, no hardware facts.
export function bareTargetInfo(model = 'm'): TargetInfo {
  return {
    engine: { name: 'generic' },
    models: [model],
    model,
    metricsAvailable: false,
    extensions: {
      ignoreEos: true,
      minTokens: false,
      streamOptions: true,
      continuousUsage: false,
      maxCompletionTokens: false,
    },
    hardware: { source: 'none' },
  };
}
