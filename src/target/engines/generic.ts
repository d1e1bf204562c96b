import { okJson, posInt, str } from '../discovery-util.js';
import { generic as facts } from '../../engines/generic.js';
import type { Discovery } from '../types.js';
import { adapterOf } from './adapter.js';

// Any other OpenAI-compatible server: its facts are src/engines/generic.ts.
export const generic = adapterOf(facts, {
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
});
