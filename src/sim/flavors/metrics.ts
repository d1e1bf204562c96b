import { LATENCY_BUCKETS_S, type Histogram, type SimContext } from '../context.js';

// Prometheus text exposition in each flavor's metric names (docs/engines.md "Server metrics sampled during each
// decode window"). Returns null where the flavor has no Prometheus endpoint at that path.
type Labels = Record<string, string | number | boolean>;

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const lbl = (l: Labels) => {
  const parts = Object.entries(l).map(([k, v]) => `${k}="${esc(String(v))}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};

class Expo {
  out: string[] = [];
  metric(name: string, type: 'gauge' | 'counter', help: string, value: number, labels: Labels = {}): this {
    this.out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}${lbl(labels)} ${value}`);
    return this;
  }
  hist(name: string, help: string, h: Histogram, labels: Labels = {}): this {
    this.out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`);
    LATENCY_BUCKETS_S.forEach((b, i) =>
      this.out.push(`${name}_bucket${lbl({ ...labels, le: b })} ${h.counts[i]}`),
    );
    this.out.push(
      `${name}_bucket${lbl({ ...labels, le: '+Inf' })} ${h.count}`,
      `${name}_sum${lbl(labels)} ${h.sum}`,
      `${name}_count${lbl(labels)} ${h.count}`,
    );
    return this;
  }
  text(): string {
    return this.out.join('\n') + '\n';
  }
}

function vllm(ctx: SimContext): string {
  const s = ctx.engine.sched;
  const p = ctx.profile;
  const m = { model_name: p.servedModelName, engine: 0 };
  const c = s.counters;
  const e = new Expo()
    .metric(
      'vllm:num_requests_running',
      'gauge',
      'Number of requests in model execution batches.',
      s.running.length,
      m,
    )
    .metric(
      'vllm:num_requests_waiting',
      'gauge',
      'Number of requests waiting to be processed.',
      s.waitingAt(ctx.clock.now()),
      m,
    )
    .metric('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', s.kv.usage, m)
    .metric('vllm:cache_config_info', 'gauge', 'Information of the LLMEngine CacheConfig', 1, {
      block_size: p.blockSize,
      cache_dtype: 'auto',
      enable_prefix_caching: p.prefixCaching ? 'True' : 'False',
      gpu_memory_utilization: 0.9,
      num_gpu_blocks: s.kv.numBlocks,
      num_cpu_blocks: 'None',
      kv_cache_size_tokens: s.kv.numBlocks * p.blockSize,
      engine: 0,
    })
    .metric(
      'vllm:prefix_cache_queries_total',
      'counter',
      'Prefix cache queries, in terms of number of queried tokens.',
      s.kv.queries,
      m,
    )
    .metric(
      'vllm:prefix_cache_hits_total',
      'counter',
      'Prefix cache hits, in terms of number of cached tokens.',
      s.kv.hits,
      m,
    )
    .metric('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', c.promptTokens, m)
    .metric(
      'vllm:generation_tokens_total',
      'counter',
      'Number of generation tokens processed.',
      c.generationTokens,
      m,
    )
    .metric(
      'vllm:num_preemptions_total',
      'counter',
      'Cumulative number of preemption from the engine.',
      c.preemptions,
      m,
    );
  for (const reason of ['stop', 'length', 'abort']) {
    e.metric(
      'vllm:request_success_total',
      'counter',
      'Count of successfully processed requests.',
      c.finished[reason] ?? 0,
      { ...m, finished_reason: reason },
    );
  }
  if (p.speculative) vllmSpeculative(e, c, m);
  vllmLatencyHistograms(e, ctx, m);
  return e.text();
}

function vllmLatencyHistograms(e: Expo, ctx: SimContext, m: Labels): void {
  e.hist('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', ctx.hist.ttft, m)
    .hist('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', ctx.hist.itl, m)
    .hist('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', ctx.hist.e2e, m)
    .hist(
      'vllm:request_queue_time_seconds',
      'Histogram of time spent in WAITING phase for request.',
      ctx.hist.queue,
      m,
    );
}

// vLLM's speculative-decoding counters: drafts, draft and accepted tokens, and acceptances per draft position.
function vllmSpeculative(e: Expo, c: SimContext['engine']['sched']['counters'], m: Labels): void {
  e.metric('vllm:spec_decode_num_drafts_total', 'counter', 'Number of spec decoding drafts.', c.specDrafts, m)
    .metric(
      'vllm:spec_decode_num_draft_tokens_total',
      'counter',
      'Number of draft tokens.',
      c.specDraftTokens,
      m,
    )
    .metric(
      'vllm:spec_decode_num_accepted_tokens_total',
      'counter',
      'Number of accepted tokens.',
      c.specAcceptedTokens,
      m,
    );
  c.specAcceptedPerPos.forEach((v, pos) =>
    e.metric(
      'vllm:spec_decode_num_accepted_tokens_per_pos_total',
      'counter',
      'Accepted tokens per draft position.',
      v,
      { ...m, position: pos },
    ),
  );
}

function sglang(ctx: SimContext): string {
  const s = ctx.engine.sched;
  const p = ctx.profile;
  const m = { model_name: p.servedModelName };
  const c = s.counters;
  const used = s.kv.usedBlocks * p.blockSize;
  const e = new Expo()
    .metric('sglang:num_running_reqs', 'gauge', 'The number of running requests.', s.running.length, m)
    .metric(
      'sglang:num_queue_reqs',
      'gauge',
      'The number of requests in the waiting queue.',
      s.waitingAt(ctx.clock.now()),
      m,
    )
    .metric('sglang:token_usage', 'gauge', 'The token usage.', s.kv.usage, m)
    .metric('sglang:num_used_tokens', 'gauge', 'The number of used tokens.', used, m)
    .metric(
      'sglang:max_total_num_tokens',
      'gauge',
      'Maximum total number of tokens in the KV pool.',
      s.kv.numBlocks * p.blockSize,
      m,
    )
    .metric(
      'sglang:cache_hit_rate',
      'gauge',
      'The prefix cache hit rate.',
      s.kv.queries ? s.kv.hits / s.kv.queries : 0,
      m,
    )
    .metric('sglang:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', c.promptTokens, m)
    .metric(
      'sglang:generation_tokens_total',
      'counter',
      'Number of generation tokens processed.',
      c.generationTokens,
      m,
    )
    .metric('sglang:cached_tokens_total', 'counter', 'Number of cached prompt tokens.', s.kv.hits, m)
    .metric('sglang:num_requests_total', 'counter', 'Number of requests processed.', c.requests, m)
    .metric(
      'sglang:num_aborted_requests_total',
      'counter',
      'Number of requests aborted.',
      c.finished.abort ?? 0,
      m,
    );
  if (p.speculative) sglangSpeculative(e, c, m);
  return e
    .hist(
      'sglang:time_to_first_token_seconds',
      'Histogram of time to first token in seconds.',
      ctx.hist.ttft,
      m,
    )
    .hist(
      'sglang:inter_token_latency_seconds',
      'Histogram of inter-token latency in seconds.',
      ctx.hist.itl,
      m,
    )
    .hist(
      'sglang:e2e_request_latency_seconds',
      'Histogram of End-to-end request latency in seconds',
      ctx.hist.e2e,
      m,
    )
    .text();
}

// SGLang reports speculative decoding as gauges: mean acceptance length and rate.
function sglangSpeculative(e: Expo, c: SimContext['engine']['sched']['counters'], m: Labels): void {
  const acc = c.specDrafts ? 1 + c.specAcceptedTokens / c.specDrafts : 0;
  e.metric(
    'sglang:spec_accept_length',
    'gauge',
    'The average acceptance length of speculative decoding.',
    acc,
    m,
  ).metric(
    'sglang:spec_accept_rate',
    'gauge',
    'The average acceptance rate of speculative decoding.',
    c.specDraftTokens ? c.specAcceptedTokens / c.specDraftTokens : 0,
    m,
  );
}

function llamacpp(ctx: SimContext): string {
  const s = ctx.engine.sched;
  const c = s.counters;
  const e = new Expo()
    // llama-server counts the prompt tokens it computed, not those its slot or prompt cache held
    .metric('llamacpp:prompt_tokens_total', 'counter', 'Number of prompt tokens processed.', c.promptComputed)
    .metric(
      'llamacpp:tokens_predicted_total',
      'counter',
      'Number of generation tokens processed.',
      c.generationTokens,
    )
    .metric('llamacpp:n_decode_total', 'counter', 'Total number of llama_decode() calls', c.steps)
    .metric('llamacpp:requests_processing', 'gauge', 'Number of requests processing.', s.running.length)
    .metric(
      'llamacpp:requests_deferred',
      'gauge',
      'Number of requests deferred.',
      s.waitingAt(ctx.clock.now()),
    )
    .metric('llamacpp:n_tokens_max', 'gauge', 'Largest observed n_tokens.', s.kv.usedBlocks * s.kv.blockSize);
  if (ctx.profile.speculative) {
    e.metric('llamacpp:spec_decode_num_drafts_total', 'counter', 'Number of drafts.', c.specDrafts)
      .metric(
        'llamacpp:spec_decode_num_draft_tokens_total',
        'counter',
        'Number of draft tokens.',
        c.specDraftTokens,
      )
      .metric(
        'llamacpp:spec_decode_num_accepted_tokens_total',
        'counter',
        'Number of accepted tokens.',
        c.specAcceptedTokens,
      );
  }
  return e.text();
}

function tgi(ctx: SimContext): string {
  const s = ctx.engine.sched;
  const c = s.counters;
  return new Expo()
    .metric(
      'tgi_batch_max_total_tokens',
      'gauge',
      'Maximum tokens in a batch (KV budget).',
      s.kv.numBlocks * ctx.profile.blockSize,
    )
    .metric('tgi_queue_size', 'gauge', 'Queue size.', s.waitingAt(ctx.clock.now()))
    .metric('tgi_batch_current_size', 'gauge', 'Current batch size.', s.running.length)
    .metric(
      'tgi_batch_current_max_tokens',
      'gauge',
      'Tokens in the current batch.',
      s.kv.usedBlocks * ctx.profile.blockSize,
    )
    .metric('tgi_request_count', 'counter', 'Requests.', c.requests)
    .metric(
      'tgi_request_success',
      'counter',
      'Successful requests.',
      (c.finished.stop ?? 0) + (c.finished.length ?? 0),
    )
    .hist('tgi_request_queue_duration', 'Queue duration.', ctx.hist.queue)
    .hist('tgi_request_inference_duration', 'Inference duration.', ctx.hist.e2e)
    .hist('tgi_request_mean_time_per_token_duration', 'Mean time per token.', ctx.hist.itl)
    .text();
}

function trtllm(ctx: SimContext): string {
  const s = ctx.engine.sched;
  const c = s.counters;
  const e = new Expo()
    .metric('trtllm_prompt_tokens_total', 'counter', 'Prompt tokens.', c.promptTokens)
    .metric('trtllm_generation_tokens_total', 'counter', 'Generation tokens.', c.generationTokens)
    .metric('trtllm_num_requests_running', 'gauge', 'Running requests.', s.running.length)
    .metric('trtllm_num_requests_waiting', 'gauge', 'Waiting requests.', s.waitingAt(ctx.clock.now()))
    .metric('trtllm_kv_cache_utilization', 'gauge', 'KV cache utilization.', s.kv.usage)
    .metric(
      'trtllm_kv_cache_hit_rate',
      'gauge',
      'KV cache hit rate.',
      s.kv.queries ? s.kv.hits / s.kv.queries : 0,
    )
    .metric('trtllm_kv_cache_max_blocks', 'gauge', 'KV cache blocks.', s.kv.numBlocks)
    .metric('trtllm_kv_cache_tokens_per_block', 'gauge', 'Tokens per KV block.', ctx.profile.blockSize);
  if (ctx.profile.speculative) {
    e.metric(
      'trtllm_spec_decode_num_draft_tokens_total',
      'counter',
      'Draft tokens.',
      c.specDraftTokens,
    ).metric(
      'trtllm_spec_decode_num_accepted_tokens_total',
      'counter',
      'Accepted tokens.',
      c.specAcceptedTokens,
    );
  }
  return e
    .hist('trtllm_time_to_first_token_seconds', 'TTFT.', ctx.hist.ttft)
    .hist('trtllm_time_per_output_token_seconds', 'TPOT.', ctx.hist.itl)
    .hist('trtllm_e2e_request_latency_seconds', 'E2E latency.', ctx.hist.e2e)
    .hist('trtllm_request_queue_time_seconds', 'Queue time.', ctx.hist.queue)
    .text();
}

export function prometheusText(ctx: SimContext): string | null {
  switch (ctx.flavor.name) {
    case 'vllm':
      return vllm(ctx);
    case 'sglang':
      return sglang(ctx);
    case 'llamacpp':
      return llamacpp(ctx);
    case 'tgi':
      return tgi(ctx);
    case 'trtllm':
      return trtllm(ctx);
    case 'ollama':
      return null;
  }
}

// TensorRT-LLM's JSON /metrics: one entry per iteration since the last call (the call drains them).
export function trtllmIterStats(ctx: SimContext): Array<Record<string, unknown>> {
  const s = ctx.engine.sched;
  const now = {
    iter: s.counters.steps,
    iterLatencyMS: 0,
    numActiveRequests: s.running.length,
    numQueuedRequests: s.waitingAt(ctx.clock.now()),
    maxNumActiveRequests: ctx.profile.maxNumSeqs,
    gpuMemUsage: 0,
    kvCacheStats: {
      maxNumBlocks: s.kv.numBlocks,
      freeNumBlocks: s.kv.freeBlocks,
      usedNumBlocks: s.kv.usedBlocks,
      tokensPerBlock: ctx.profile.blockSize,
      allocTotalBlocks: s.kv.usedBlocks,
      allocNewBlocks: 0,
      reusedBlocks: Math.floor(s.kv.hits / ctx.profile.blockSize),
      missedBlocks: Math.floor((s.kv.queries - s.kv.hits) / ctx.profile.blockSize),
      cacheHitRate: s.kv.queries ? s.kv.hits / s.kv.queries : 0,
    },
  };
  return [now];
}
