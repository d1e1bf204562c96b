// The launch settings that move a server's limits, per engine, as each engine's own documentation names them
// (vLLM engine arguments, SGLang server arguments, llama-server --help, Ollama's environment variables,
// text-generation-launcher --help, trtllm-serve --help; checked December 2026). Used by the answer's "what to
// change" (docs/method.md "Why the limit is there").

export interface EngineSettings {
  engine: string; // as people write it
  seats: string; // requests the engine runs at once
  seatsNote?: string;
  kv: string[]; // what sizes the KV cache
  chunk?: string; // how much prefill one step may take (chunked prefill)
  admission?: string; // requests beyond it are refused, not queued
  prefixCacheOff?: string; // the setting that turns its prefix cache off (on by default on every engine here)
}

const SETTINGS: Record<string, EngineSettings> = {
  vllm: {
    engine: 'vLLM',
    seats: '--max-num-seqs',
    kv: ['--gpu-memory-utilization', '--kv-cache-dtype fp8'],
    chunk: '--max-num-batched-tokens',
    prefixCacheOff: '--no-enable-prefix-caching',
  },
  sglang: {
    engine: 'SGLang',
    seats: '--max-running-requests',
    kv: ['--mem-fraction-static', '--kv-cache-dtype fp8_e4m3'],
    chunk: '--chunked-prefill-size',
    prefixCacheOff: '--disable-radix-cache',
  },
  llamacpp: {
    engine: 'llama.cpp',
    seats: '-np (--parallel)',
    // Split KV (the default): each slot addresses -c / -np tokens, so more slots need a larger -c.
    seatsNote: 'each slot gets -c / -np tokens unless --kv-unified, so raise -c with it',
    kv: ['-c (--ctx-size)', '--cache-type-k q8_0 --cache-type-v q8_0'],
    chunk: '-b (--batch-size)',
    prefixCacheOff: '--no-cache-prompt',
  },
  ollama: {
    engine: 'Ollama',
    seats: 'OLLAMA_NUM_PARALLEL',
    seatsNote: 'each parallel request gets its own context, so memory grows with it',
    kv: ['OLLAMA_CONTEXT_LENGTH', 'OLLAMA_KV_CACHE_TYPE=q8_0 (with OLLAMA_FLASH_ATTENTION=1)'],
  },
  tgi: {
    engine: 'TGI',
    // On GPUs with unpadded inference the running batch is bounded by tokens, not by a request count.
    seats: '--max-batch-total-tokens',
    kv: ['--cuda-memory-fraction', '--max-batch-total-tokens'],
    chunk: '--max-batch-prefill-tokens',
    admission: '--max-concurrent-requests',
    prefixCacheOff: 'PREFIX_CACHING=0',
  },
  trtllm: {
    engine: 'TensorRT-LLM',
    seats: '--max_batch_size',
    kv: ['--kv_cache_free_gpu_memory_fraction'],
    chunk: '--max_num_tokens',
    prefixCacheOff: 'kv_cache_config.enable_block_reuse: false',
  },
};

const GENERIC: EngineSettings = {
  engine: 'the server',
  seats:
    'its limit on requests running at once (vLLM --max-num-seqs, llama.cpp -np, Ollama OLLAMA_NUM_PARALLEL)',
  kv: ['the memory it gives the KV cache'],
};

/** The engine's settings; a sim flavor (vllm, sim-vllm) reads as its engine. */
export function engineSettings(engineName: string): EngineSettings {
  const key = engineName
    .toLowerCase()
    .replace(/^sim-/, '')
    .replace(/[^a-z]/g, '');
  return SETTINGS[key === 'tensorrtllm' ? 'trtllm' : key] ?? GENERIC;
}
