import { OPENAI_CACHED_TOKENS } from './common.js';
import { settingWords } from './setting.js';
import type { EngineFacts, LaunchLimits } from './types.js';
import { intFlag, listenOn, runs } from './words.js';

// vLLM (docs/engines.md "vLLM"): seats and one paged KV pool the scheduler preempts from.

export const VLLM_FLAGS = {
  seats: '--max-num-seqs',
  maxModelLen: '--max-model-len',
  blocks: '--num-gpu-blocks-override',
  blockSize: '--block-size',
} as const;
const DEFAULT_BLOCK_SIZE = 16;

function readLaunch(words: readonly string[]): LaunchLimits | undefined {
  if (!runs(words, /^vllm(\..*)?$/)) return undefined;
  const seats = intFlag(words, [VLLM_FLAGS.seats]);
  const maxLen = intFlag(words, [VLLM_FLAGS.maxModelLen]);
  const blocks = intFlag(words, [VLLM_FLAGS.blocks]);
  const size = intFlag(words, [VLLM_FLAGS.blockSize]) ?? DEFAULT_BLOCK_SIZE;
  if (!blocks && !seats && !maxLen) return undefined;
  return {
    ...(seats ? { seats, seatsSource: `launch command ${VLLM_FLAGS.seats} ${seats}` } : {}),
    ...(blocks ? { kvTokens: blocks * size } : {}),
    ...(maxLen ? { contextLimit: maxLen } : {}),
    layout: 'pool',
    onKvFull: 'preempt',
    source: blocks
      ? `launch command ${VLLM_FLAGS.blocks} ${blocks} × block ${size}`
      : `launch command ${seats ? `${VLLM_FLAGS.seats} ${seats}` : `${VLLM_FLAGS.maxModelLen} ${maxLen}`}`,
  };
}

export const vllm: EngineFacts = {
  name: 'vllm',
  aliases: [],
  display: 'vLLM',
  repository: 'github.com/vllm-project/vllm',
  ownedBy: ['vllm'],
  fingerprintPaths: ['/metrics'],
  extensions: {
    ignoreEos: true,
    minTokens: true,
    streamOptions: true,
    continuousUsage: true,
    maxCompletionTokens: true,
  },
  outputCapFields: (api) => (api === 'chat' ? ['max_tokens', 'max_completion_tokens'] : ['max_tokens']),
  reasoningField: 'reasoning', // `reasoning_content` before PR #27752; the client reads both
  metricNames: {
    running: ['vllm:num_requests_running'],
    waiting: ['vllm:num_requests_waiting'],
    kvUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'],
    prefixHits: ['vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total'],
    prefixQueries: ['vllm:prefix_cache_queries_total', 'vllm:gpu_prefix_cache_queries_total'],
    specDrafts: ['vllm:spec_decode_num_drafts_total'],
    specDraftTokens: ['vllm:spec_decode_num_draft_tokens_total'],
    specAccepted: ['vllm:spec_decode_num_accepted_tokens_total'],
    promptTokens: ['vllm:prompt_tokens_total'],
    generationTokens: ['vllm:generation_tokens_total'],
  },
  prefixCache: {
    defaultOn: true,
    off: '--no-enable-prefix-caching',
    cachedTokens: {
      field: OPENAI_CACHED_TOKENS,
      needs: '--enable-prompt-tokens-details',
    },
    words: `${OPENAI_CACHED_TOKENS}, only with --enable-prompt-tokens-details`,
  },
  settings: {
    seats: VLLM_FLAGS.seats,
    kv: ['--gpu-memory-utilization', '--kv-cache-dtype fp8'],
    chunk: '--max-num-batched-tokens',
  },
  limits: {
    seats: '--max-num-seqs requests run at once; the rest wait in its queue',
    kv: 'one paged pool (num_gpu_blocks × block_size) every running request takes blocks from as it grows',
    combine: 'whichever binds first: the seats, or the pool, which preempts a running request when full',
    layouts: ['pool'],
    overSeats: 'queue',
    unknownFromApi: [],
  },
  errors: {
    contextExceeded: ["this model's maximum context length is", 'is longer than the maximum model length'],
    overloaded: [], // no admission control: requests queue
    promptTokensIn: [/your request has (\d+) input tokens/i],
    tooLong: (n, m, x) =>
      x !== undefined && m <= n
        ? `'max_tokens' or 'max_completion_tokens' is too large: ${x}. This model's maximum context length is ${n} tokens and your request has ${m} input tokens (${x} > ${n} - ${m}). (parameter=max_tokens, value=${x})`
        : `This model's maximum context length is ${n} tokens. However, your request has ${m} input tokens. Please reduce the length of the input messages.`,
  },
  setting: (want) => settingWords(vllm.settings)(want),
  readLaunch,
  sim: {
    launch: (p, host, port) => [
      'vllm serve',
      p.servedModelName,
      VLLM_FLAGS.maxModelLen,
      p.maxModelLen,
      VLLM_FLAGS.seats,
      p.maxNumSeqs,
      '--max-num-batched-tokens',
      p.maxBatchedTokens,
      VLLM_FLAGS.blockSize,
      p.blockSize,
      VLLM_FLAGS.blocks,
      Math.floor(p.kvCapacityTokens / p.blockSize),
      !p.prefixCaching && '--no-enable-prefix-caching',
      p.promptTokensDetails && '--enable-prompt-tokens-details',
      ...listenOn(host, port),
    ],
    // The pool holds whole blocks (src/sim/kv-cache.ts), as --num-gpu-blocks-override states it.
    limits: (p) => ({
      seats: p.maxNumSeqs,
      kvTokens: Math.floor(p.kvCapacityTokens / p.blockSize) * p.blockSize,
      contextLimit: p.maxModelLen,
      layout: 'pool',
      onKvFull: 'preempt',
    }),
  },
};
