import {
  num,
  obj,
  okJson,
  posInt,
  promAt,
  str,
  tokenizeTimeoutMs,
  useTokenize,
  userMessage,
} from '../discovery-util.js';
import { sglang as facts } from '../../engines/sglang.js';
import type { Discovery, ProbeContext } from '../types.js';
import { adapterOf } from './adapter.js';

// SGLang: its facts are src/engines/sglang.ts.
const SGLANG_KEYS = [
  'max_total_num_tokens',
  'mem_fraction_static',
  'disable_radix_cache',
  'max_running_requests',
];
export const sglang = adapterOf(facts, {
  async fingerprint(ctx) {
    const hit = await serverInfo(ctx);
    return hit && SGLANG_KEYS.some((k) => k in hit.info) ? `GET ${hit.path}` : undefined;
  },
  async discover(ctx, model) {
    const d: Discovery = { metricsAvailable: false };
    const hit = await serverInfo(ctx);
    const info = hit?.info ?? {};
    const states = Array.isArray(info.internal_states) ? (obj(info.internal_states[0]) ?? {}) : {};
    d.version = str(info.version);
    d.quantization = str(info.quantization);
    const fromModels = posInt(model.raw.max_model_len);
    const fromInfo = posInt(info.context_length) ?? posInt(states.context_length);
    if (fromModels)
      Object.assign(d, { maxModelLen: fromModels, maxModelLenSource: 'GET /v1/models max_model_len' });
    else if (fromInfo)
      Object.assign(d, { maxModelLen: fromInfo, maxModelLenSource: `GET ${hit?.path} context_length` });
    const seats = posInt(info.max_running_requests) ?? posInt(states.max_running_requests);
    if (seats) Object.assign(d, { seats, seatsSource: `GET ${hit?.path} max_running_requests` });
    const pool = posInt(info.max_total_num_tokens) ?? posInt(states.max_total_num_tokens);
    if (pool)
      Object.assign(d, { kvCapacityTokens: pool, kvCapacitySource: `GET ${hit?.path} max_total_num_tokens` });
    const prom = await promAt(ctx, '/metrics');
    if (prom && [...prom.keys()].some((k) => k.startsWith('sglang:'))) {
      d.metricsAvailable = true;
      d.metricsPath = '/metrics';
      const gauge = num(prom.get('sglang:max_total_num_tokens')?.[0]?.value);
      if (!d.kvCapacityTokens && gauge) {
        Object.assign(d, {
          kvCapacityTokens: Math.floor(gauge),
          kvCapacitySource: 'sglang:max_total_num_tokens',
        });
      }
    } else {
      (d.warnings ??= []).push(
        'SGLang /metrics is off (start the server with --enable-metrics to see its queue).',
      );
    }
    if (info.disable_radix_cache === true)
      (d.warnings ??= []).push(`Prefix caching is off (${facts.prefixCache.off}).`);
    const plain = await sglangTokenize(ctx, model.id, 'hello', 'completions');
    if (plain !== undefined) {
      // A build that ignores `messages` answers with the content's count or nothing: only more than the content
      // alone shows the template was rendered.
      const chat = await sglangTokenize(ctx, model.id, 'hello', 'chat');
      const rendered = chat !== undefined && chat > plain;
      useTokenize(d, (text, api) => sglangTokenize(ctx, model.id, text, api), rendered, '/v1/tokenize');
    }
    return d;
  },
});

// Newer builds: /server_info; the old /get_server_info stays as an alias.
async function serverInfo(
  ctx: ProbeContext,
): Promise<{ path: string; info: Record<string, unknown> } | undefined> {
  for (const path of ['/server_info', '/get_server_info']) {
    const info = okJson(await ctx.get(path));
    if (info && SGLANG_KEYS.some((k) => k in info)) return { path, info };
  }
  return undefined;
}

// Its max_model_len is the tokenizer's, not the server's context; only the count is used.
async function sglangTokenize(
  ctx: ProbeContext,
  model: string,
  text: string,
  api: 'chat' | 'completions',
): Promise<number | undefined> {
  const body = api === 'chat' ? { model, messages: userMessage(text) } : { model, prompt: text };
  const j = okJson(await ctx.post('/v1/tokenize', body, tokenizeTimeoutMs(ctx, text.length)));
  const c = j?.count ?? (Array.isArray(j?.tokens) ? j.tokens.length : undefined);
  return typeof c === 'number' && c >= 0 ? c : undefined;
}
