import { tryJson } from '../../failures/error-body.js';
import { obj, okJson, okText, posInt, promAt, str, tokenizeTimeoutMs } from '../discovery-util.js';
import { hasAny } from '../prometheus.js';
import { readPromSample } from '../read-sample.js';
import { trtllm as facts } from '../../engines/trtllm.js';
import type { Discovery, ProbeContext } from '../types.js';
import { adapterOf } from './adapter.js';

// TensorRT-LLM `trtllm-serve`: its facts are src/engines/trtllm.ts. Its /metrics is JSON iteration stats; Prometheus
// is at /prometheus/metrics (opt-in). Unknown request fields are a 400, so the body carries only known ones.
const PROM_NAMES = facts.metricNames;

export const trtllm = adapterOf(facts, {
  async fingerprint(ctx) {
    if (iterationStats(okText(await ctx.get('/metrics'))) !== undefined)
      return 'GET /metrics (JSON iteration stats)';
    const prom = await promAt(ctx, '/prometheus/metrics');
    return prom && hasAny(prom, 'trtllm_') ? 'GET /prometheus/metrics' : undefined;
  },
  async discover(ctx) {
    const d: Discovery = { metricsAvailable: false };
    d.version = str(okJson(await ctx.get('/version'))?.version);
    const info = okJson(await ctx.get('/server_info')) ?? {};
    for (const key of ['max_seq_len', 'max_model_len', 'max_input_len']) {
      const n = posInt(info[key]) ?? posInt(obj(info.build_config)?.[key]);
      if (n) {
        Object.assign(d, { maxModelLen: n, maxModelLenSource: `GET /server_info ${key}` });
        break;
      }
    }
    const prom = await promAt(ctx, '/prometheus/metrics');
    const stats = iterationStats(okText(await ctx.get('/metrics')));
    if (prom && hasAny(prom, 'trtllm_')) {
      d.metricsAvailable = true;
      d.metricsPath = '/prometheus/metrics';
      const blocks = posInt(prom.get('trtllm_kv_cache_max_blocks')?.[0]?.value);
      const perBlock = posInt(prom.get('trtllm_kv_cache_tokens_per_block')?.[0]?.value);
      if (blocks && perBlock) {
        Object.assign(d, {
          kvCapacityTokens: blocks * perBlock,
          kvCapacitySource: 'trtllm_kv_cache_max_blocks × trtllm_kv_cache_tokens_per_block',
        });
      }
    } else if (stats !== undefined) {
      d.metricsAvailable = true;
      d.metricsPath = '/metrics';
    }
    const kv = obj(stats?.at(-1)?.kvCacheStats);
    const maxBlocks = posInt(kv?.maxNumBlocks);
    const tpb = posInt(kv?.tokensPerBlock);
    if (!d.kvCapacityTokens && maxBlocks && tpb) {
      Object.assign(d, {
        kvCapacityTokens: maxBlocks * tpb,
        kvCapacitySource: 'GET /metrics kvCacheStats maxNumBlocks × tokensPerBlock',
      });
    }
    if (!d.kvCapacityTokens) {
      (d.warnings ??= []).push(
        'TensorRT-LLM reports KV blocks only after its first iteration (and /metrics drains them); pass --kv-capacity.',
      );
    }
    if ((await trtTokenize(ctx, 'hello')) !== undefined) {
      d.tokenize = (text) => trtTokenize(ctx, text);
      d.tokenizeMethod = 'POST /_internal/tokenize (content only)';
    }
    return d;
  },
  readSample(body) {
    const stats = iterationStats(body);
    if (stats === undefined) return readPromSample(body, PROM_NAMES);
    const last = stats.at(-1);
    if (!last) return undefined;
    const s: Record<string, number> = {};
    const put = (k: string, v: unknown): void => {
      if (typeof v === 'number' && Number.isFinite(v)) s[k] = v;
    };
    put('running', last.numActiveRequests);
    put('waiting', last.numQueuedRequests);
    const kv = obj(last.kvCacheStats);
    if (kv) {
      const max = Number(kv.maxNumBlocks);
      const used = Number(kv.usedNumBlocks);
      if (max > 0 && Number.isFinite(used)) s.kvUsage = used / max;
      const reused = Number(kv.reusedBlocks);
      const missed = Number(kv.missedBlocks);
      if (Number.isFinite(reused) && Number.isFinite(missed)) {
        s.prefixCacheHits = reused;
        s.prefixCacheQueries = reused + missed;
      }
    }
    return s;
  },
});

// JSON array of per-iteration stats (possibly empty right after a drain), or undefined if not that shape.
function iterationStats(text: string | undefined): Array<Record<string, unknown>> | undefined {
  if (text === undefined) return undefined;
  const j = tryJson(text);
  if (!Array.isArray(j)) return undefined;
  return j.filter((e): e is Record<string, unknown> => !!e && typeof e === 'object');
}

async function trtTokenize(ctx: ProbeContext, text: string): Promise<number | undefined> {
  const j = okJson(
    await ctx.post('/_internal/tokenize', { prompt: text }, tokenizeTimeoutMs(ctx, text.length)),
  );
  const c = j?.count ?? (Array.isArray(j?.tokens) ? j.tokens.length : undefined);
  return typeof c === 'number' && c >= 0 ? c : undefined;
}
