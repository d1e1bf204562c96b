import { okJson, posInt, str } from '../discovery-util.js';
import type { Discovery, EngineAdapter } from '../types.js';

// Any other OpenAI-compatible server: only what the OpenAI API promises, no extensions that a strict
// server could reject. `--engine NAME` forces an engine's extensions when detection cannot see it.
export const generic: EngineAdapter = {
  name: 'generic',
  cachedTokensSource: 'usage.prompt_tokens_details.cached_tokens where the server reports it',
  extensions: {
    ignoreEos: false,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: false,
  },
  metricNames: {},
  fingerprintPaths: [],
  fingerprint: () => Promise.resolve('fallback (no engine-specific endpoint answered)'),
  async discover(ctx, model) {
    const d: Discovery = { metricsAvailable: false };
    const ver = okJson(await ctx.get('/version'));
    d.version = str(ver?.version);
    for (const key of ['max_model_len', 'context_length', 'context_window', 'max_context_length']) {
      const n = posInt(model.raw[key]);
      if (n) {
        d.maxModelLen = n;
        d.maxModelLenSource = `GET /v1/models ${key}`;
        break;
      }
    }
    return d;
  },
  outputCapFields: () => ['max_tokens'],
};
