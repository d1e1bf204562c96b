import { obj, okJson, posInt, str } from '../discovery-util.js';
import { OLLAMA_DEFAULT_PARALLEL, ollama as facts } from '../../engines/ollama.js';
import type { Discovery, ProbeContext } from '../types.js';
import { adapterOf } from './adapter.js';

// Ollama (OpenAI compatibility layer): its facts are src/engines/ollama.ts. No /metrics, no tokenizer, no KV endpoint.
export const ollama = adapterOf(facts, {
  async fingerprint(ctx) {
    const v = okJson(await ctx.get('/api/version'));
    return str(v?.version) ? 'GET /api/version' : undefined;
  },
  async preferredModel(ctx) {
    return (await loaded(ctx))[0]?.name;
  },
  async discover(ctx, model) {
    const d: Discovery = { metricsAvailable: false };
    d.version = str(okJson(await ctx.get('/api/version'))?.version);
    const running = (await loaded(ctx)).find((m) => m.name === model.id || m.model === model.id);
    const show = okJson(await ctx.post('/api/show', { model: model.id }));
    d.quantization = str(obj(show?.details)?.quantization_level);
    if (running?.contextLength) {
      d.maxModelLen = running.contextLength;
      d.maxModelLenSource = 'GET /api/ps context_length (loaded model)';
    } else {
      const info = obj(show?.model_info) ?? {};
      const key = Object.keys(info).find((k) => k.endsWith('.context_length'));
      const n = key ? posInt(info[key]) : undefined;
      if (n) {
        d.maxModelLen = n;
        d.maxModelLenSource = `POST /api/show ${key} (architecture maximum; the server's num_ctx may be smaller)`;
      }
    }
    d.warnings = [
      `Ollama runs ${facts.settings.seats} requests at once (default ${OLLAMA_DEFAULT_PARALLEL}); the rest queue.`,
      'Ollama truncates over-long prompts instead of rejecting them.',
    ];
    return d;
  },
});

interface Loaded {
  name?: string;
  model?: string;
  contextLength?: number;
}

async function loaded(ctx: ProbeContext): Promise<Loaded[]> {
  const ps = okJson(await ctx.get('/api/ps'));
  const list = Array.isArray(ps?.models) ? (ps.models as unknown[]) : [];
  return list.map((m) => {
    const o = obj(m) ?? {};
    return { name: str(o.name), model: str(o.model), contextLength: posInt(o.context_length) };
  });
}
