import { OPENAI_CACHED_TOKENS } from './common.js';
import { settingWords } from './setting.js';
import type { EngineFacts, LaunchLimits } from './types.js';
import { intFlag, listenOn, runs } from './words.js';

// TensorRT-LLM `trtllm-serve` (docs/engines.md "TensorRT-LLM"): seats and one paged KV pool sized by a share of the
// GPU's free memory (so the launch command gives no token count; its /metrics does).

export const TRTLLM_FLAGS = {
  seats: '--max_batch_size',
  maxSeqLen: '--max_seq_len',
  chunk: '--max_num_tokens',
} as const;

function readLaunch(words: readonly string[]): LaunchLimits | undefined {
  if (!runs(words, /^trtllm-serve$/)) return undefined;
  const seats = intFlag(words, [TRTLLM_FLAGS.seats]);
  const len = intFlag(words, [TRTLLM_FLAGS.maxSeqLen]);
  if (!seats && !len) return undefined;
  return {
    ...(seats ? { seats, seatsSource: `launch command ${TRTLLM_FLAGS.seats} ${seats}` } : {}),
    ...(len ? { contextLimit: len } : {}),
    layout: 'pool',
    source: `launch command ${seats ? `${TRTLLM_FLAGS.seats} ${seats}` : `${TRTLLM_FLAGS.maxSeqLen} ${len}`}`,
  };
}

export const trtllm: EngineFacts = {
  name: 'trtllm',
  aliases: ['tensorrt-llm', 'tensorrt_llm', 'trt-llm', 'tensorrtllm'],
  display: 'TensorRT-LLM',
  repository: 'github.com/NVIDIA/TensorRT-LLM',
  ownedBy: ['tensorrt_llm', 'trtllm'],
  fingerprintPaths: ['/metrics', '/prometheus/metrics'],
  extensions: {
    ignoreEos: true,
    minTokens: true,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: true,
  },
  // max_tokens is the alias every build accepts; sending both names could trip extra="forbid".
  outputCapFields: () => ['max_tokens'],
  reasoningField: 'reasoning_content',
  metricNames: {
    running: ['trtllm_num_requests_running'],
    waiting: ['trtllm_num_requests_waiting'],
    kvUsage: ['trtllm_kv_cache_utilization'],
    specDraftTokens: ['trtllm_spec_decode_num_draft_tokens_total'],
    specAccepted: ['trtllm_spec_decode_num_accepted_tokens_total'],
    promptTokens: ['trtllm_prompt_tokens_total'],
    generationTokens: ['trtllm_generation_tokens_total'],
  },
  prefixCache: {
    defaultOn: true, // KvCacheConfig enable_block_reuse
    off: 'kv_cache_config.enable_block_reuse: false (--extra_llm_api_options)',
    cachedTokens: { field: OPENAI_CACHED_TOKENS },
    words: `${OPENAI_CACHED_TOKENS} (always)`,
  },
  settings: {
    seats: TRTLLM_FLAGS.seats,
    kv: ['--kv_cache_free_gpu_memory_fraction'],
    chunk: TRTLLM_FLAGS.chunk,
  },
  limits: {
    seats: '--max_batch_size requests run at once; the rest wait in its queue',
    kv: 'one paged pool (maxNumBlocks × tokensPerBlock) sized by --kv_cache_free_gpu_memory_fraction',
    combine: 'whichever binds first: the seats, or the pool',
    layouts: ['pool'],
    overSeats: 'queue',
    unknownFromApi: [],
  },
  errors: {
    contextExceeded: ['should not exceed max_seq_len'],
    overloaded: [],
    promptTokensIn: [/prompt length \((\d+)\)/i],
    tooLong: (n, m, x) =>
      `The sum of prompt length (${m}) and query length (0) max_tokens (${x ?? 0}) should not exceed max_seq_len (${n})`,
  },
  setting: (want) => settingWords(trtllm.settings)(want),
  readLaunch,
  sim: {
    launch: (p, host, port) => [
      'trtllm-serve',
      p.servedModelName,
      TRTLLM_FLAGS.maxSeqLen,
      p.maxModelLen,
      TRTLLM_FLAGS.seats,
      p.maxNumSeqs,
      TRTLLM_FLAGS.chunk,
      p.maxBatchedTokens,
      ...listenOn(host, port),
    ],
    limits: (p) => ({
      seats: p.maxNumSeqs,
      kvTokens: p.kvCapacityTokens, // the launch command does not size it: the profile's figure
      contextLimit: p.maxModelLen,
      layout: 'pool',
      onKvFull: 'preempt',
    }),
  },
};
