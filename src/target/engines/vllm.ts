import type { PromIndex } from '../prometheus.js';
import {
  commitFromVersion,
  okJson,
  posInt,
  promAt,
  str,
  tokenizeTimeoutMs,
  useTokenize,
  userMessage,
} from '../discovery-util.js';
import { vllm as facts } from '../../engines/vllm.js';
import type { Discovery, ProbeContext } from '../types.js';
import { adapterOf } from './adapter.js';

// vLLM: its facts are src/engines/vllm.ts.
export const vllm = adapterOf(facts, {
  async fingerprint(ctx) {
    const prom = await promAt(ctx, '/metrics');
    if (prom && [...prom.keys()].some((k) => k.startsWith('vllm:'))) return 'GET /metrics';
    return undefined;
  },
  async discover(ctx, model) {
    const d: Discovery = { metricsAvailable: false };
    const ver = okJson(await ctx.get('/version'));
    d.version = str(ver?.version);
    d.commit = commitFromVersion(d.version);
    d.maxModelLen = posInt(model.raw.max_model_len);
    if (d.maxModelLen) d.maxModelLenSource = 'GET /v1/models max_model_len';
    const prom = await promAt(ctx, '/metrics');
    if (prom) {
      d.metricsAvailable = [...prom.keys()].some((k) => k.startsWith('vllm:'));
      d.metricsPath = '/metrics';
      Object.assign(d, vllmKvCapacity(prom));
    }
    const probe = await vllmTokenize(ctx, model.id, 'hello', 'completions');
    if (probe !== undefined) {
      const rendered = (await vllmTokenize(ctx, model.id, 'hello', 'chat')) !== undefined;
      useTokenize(d, (text, api) => vllmTokenize(ctx, model.id, text, api), rendered, '/tokenize');
    }
    return d;
  },
});

// Labels of the constant gauge carry every CacheConfig field; one label set per engine (DP rank).
export function vllmKvCapacity(prom: PromIndex): Pick<Discovery, 'kvCapacityTokens' | 'kvCapacitySource'> {
  const pts = prom.get('vllm:cache_config_info') ?? [];
  const perEngine = new Map<string, number>();
  let usedSizeLabel = false;
  for (const p of pts) {
    const sized = posInt(p.labels.kv_cache_size_tokens);
    const blocks = posInt(p.labels.num_gpu_blocks);
    const blockSize = posInt(p.labels.block_size);
    const tokens = sized ?? (blocks && blockSize ? blocks * blockSize : undefined);
    if (!tokens) continue;
    if (sized) usedSizeLabel = true;
    perEngine.set(p.labels.engine ?? String(perEngine.size), tokens);
  }
  if (perEngine.size === 0) return {};
  const total = [...perEngine.values()].reduce((a, b) => a + b, 0);
  const what = usedSizeLabel ? 'kv_cache_size_tokens' : 'num_gpu_blocks × block_size';
  const engines = perEngine.size > 1 ? `, summed over ${perEngine.size} engines` : '';
  return { kvCapacityTokens: total, kvCapacitySource: `vllm:cache_config_info ${what}${engines}` };
}

async function vllmTokenize(
  ctx: ProbeContext,
  model: string,
  text: string,
  api: 'chat' | 'completions',
): Promise<number | undefined> {
  const body =
    api === 'chat'
      ? { model, messages: userMessage(text), add_generation_prompt: true }
      : { model, prompt: text };
  const r = await ctx.post('/tokenize', body, tokenizeTimeoutMs(ctx, text.length));
  return posIntOrZero(okJson(r)?.count);
}

function posIntOrZero(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}
