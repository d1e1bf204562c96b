import { obj, okJson, posInt, promAt, str } from '../discovery-util.js';
import type { Discovery, EngineAdapter, ModelEntry, ProbeContext } from '../types.js';

// llama.cpp `llama-server` facts: engines.md §3.
export const llamacpp: EngineAdapter = {
  name: 'llamacpp',
  repository: 'github.com/ggml-org/llama.cpp',
  reasoningField: 'reasoning_content',
  cachedTokensSource: 'timings.cache_n (the streaming usage chunk has no details)',
  extensions: {
    ignoreEos: true,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: true,
  },
  metricNames: {
    running: ['llamacpp:requests_processing'],
    waiting: ['llamacpp:requests_deferred'],
    kvUsage: ['llamacpp:kv_cache_usage_ratio'],
    specDrafts: ['llamacpp:spec_decode_num_drafts_total'],
    specDraftTokens: ['llamacpp:spec_decode_num_draft_tokens_total'],
    specAccepted: ['llamacpp:spec_decode_num_accepted_tokens_total'],
    promptTokens: ['llamacpp:prompt_tokens_total'],
    generationTokens: ['llamacpp:tokens_predicted_total'],
  },
  ownedBy: ['llamacpp'],
  fingerprintPaths: ['/props'],
  async fingerprint(ctx) {
    const props = okJson(await ctx.get('/props'));
    return props && ('build_info' in props || 'default_generation_settings' in props)
      ? 'GET /props'
      : undefined;
  },
  async discover(ctx, model) {
    const d: Discovery = { metricsAvailable: false };
    const props = okJson(await ctx.get('/props')) ?? {};
    const build = str(props.build_info);
    const m = build ? /^(b\d+)(?:-([0-9a-f]{6,40}))?/.exec(build) : null;
    d.version = m?.[1] ?? build;
    d.commit = m?.[2];
    const slotCtx = posInt(obj(props.default_generation_settings)?.n_ctx) ?? (await firstSlotCtx(ctx));
    const slots = posInt(props.total_slots) ?? 1;
    if (slotCtx) {
      d.maxModelLen = slotCtx;
      d.maxModelLenSource = 'GET /props default_generation_settings.n_ctx (per slot)';
      Object.assign(d, kvFromSlots(slotCtx, slots, props, model));
    } else if (Object.keys(props).length === 0) {
      (d.warnings ??= []).push(
        'llama.cpp /props did not answer (it needs the API key); pass --max-model-len.',
      );
    }
    const prom = await promAt(ctx, '/metrics');
    if (prom && [...prom.keys()].some((k) => k.startsWith('llamacpp:'))) {
      d.metricsAvailable = true;
      d.metricsPath = '/metrics';
    } else {
      (d.warnings ??= []).push(
        'llama.cpp /metrics is off (start llama-server with --metrics to see its queue).',
      );
    }
    if ((await lcTokenize(ctx, 'hello')) !== undefined) {
      d.tokenize = (text, api) =>
        api === 'completions' ? lcTokenize(ctx, text) : Promise.resolve(undefined);
    }
    return d;
  },
  outputCapFields: (api) => (api === 'chat' ? ['max_tokens', 'max_completion_tokens'] : ['max_tokens']),
};

// Unified KV (the default since late 2025 when -np is not given): every slot sees the whole pool, so the
// per-slot n_ctx is the pool. Split KV (-np N): each slot has n_ctx/N. A build that reports kv_unified is
// believed. Otherwise: with the default -c 0 a unified slot holds the training context while a split slot
// holds a fraction of it, so slot n_ctx >= n_ctx_train means unified. Unknown: assume unified, the smaller
// figure (cells judged Over capacity show; cells that overflow a pool would fail mid-run).
export function kvFromSlots(
  slotCtx: number,
  slots: number,
  props: Record<string, unknown>,
  model: ModelEntry,
): Pick<Discovery, 'kvCapacityTokens' | 'kvCapacitySource'> {
  if (slots <= 1) return { kvCapacityTokens: slotCtx, kvCapacitySource: 'GET /props n_ctx (1 slot)' };
  const flag = props.kv_unified ?? obj(props.default_generation_settings)?.kv_unified;
  const train = posInt(obj(model.raw.meta)?.n_ctx_train);
  if (typeof flag !== 'boolean' && train === undefined) {
    return {
      kvCapacityTokens: slotCtx,
      kvCapacitySource: `GET /props n_ctx (assumed one KV pool shared by ${slots} slots; pass --kv-capacity if not)`,
    };
  }
  const unified = typeof flag === 'boolean' ? flag : slotCtx >= train!;
  return unified
    ? {
        kvCapacityTokens: slotCtx,
        kvCapacitySource: `GET /props n_ctx (unified KV shared by ${slots} slots)`,
      }
    : {
        kvCapacityTokens: slotCtx * slots,
        kvCapacitySource: `GET /props n_ctx × total_slots (${slots} slots)`,
      };
}

async function firstSlotCtx(ctx: ProbeContext): Promise<number | undefined> {
  const r = await ctx.get('/slots');
  const slots = r.ok && Array.isArray(r.body) ? (r.body as unknown[]) : [];
  return posInt(obj(slots[0])?.n_ctx);
}

// add_special so the count includes BOS as the server's prompt count does.
async function lcTokenize(ctx: ProbeContext, text: string): Promise<number | undefined> {
  const j = okJson(await ctx.post('/tokenize', { content: text, add_special: true }));
  return Array.isArray(j?.tokens) ? j.tokens.length : undefined;
}
