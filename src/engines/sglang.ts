import { OPENAI_CACHED_TOKENS } from './common.js';
import { settingWords } from './setting.js';
import type { EngineFacts, LaunchLimits } from './types.js';
import { intFlag, listenOn, runs } from './words.js';

// SGLang (docs/engines.md "SGLang"): seats and one token pool (RadixAttention) that retracts a request when full.

export const SGLANG_FLAGS = {
  seats: '--max-running-requests',
  kv: '--max-total-tokens',
  contextLength: '--context-length',
} as const;

function readLaunch(words: readonly string[]): LaunchLimits | undefined {
  if (!runs(words, /sglang/)) return undefined;
  const seats = intFlag(words, [SGLANG_FLAGS.seats]);
  const kv = intFlag(words, [SGLANG_FLAGS.kv]);
  const len = intFlag(words, [SGLANG_FLAGS.contextLength]);
  if (!seats && !kv && !len) return undefined;
  return {
    ...(seats ? { seats, seatsSource: `launch command ${SGLANG_FLAGS.seats} ${seats}` } : {}),
    ...(kv ? { kvTokens: kv } : {}),
    ...(len ? { contextLimit: len } : {}),
    layout: 'pool',
    onKvFull: 'preempt',
    source: `launch command ${kv ? `${SGLANG_FLAGS.kv} ${kv}` : seats ? `${SGLANG_FLAGS.seats} ${seats}` : `${SGLANG_FLAGS.contextLength} ${len}`}`,
  };
}

export const sglang: EngineFacts = {
  name: 'sglang',
  aliases: [],
  display: 'SGLang',
  repository: 'github.com/sgl-project/sglang',
  ownedBy: ['sglang'],
  fingerprintPaths: ['/server_info', '/get_server_info'],
  extensions: {
    ignoreEos: true,
    minTokens: true,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: true,
  },
  outputCapFields: (api) => (api === 'chat' ? ['max_tokens', 'max_completion_tokens'] : ['max_tokens']),
  reasoningField: 'reasoning_content',
  metricNames: {
    running: ['sglang:num_running_reqs'],
    waiting: ['sglang:num_queue_reqs'],
    kvUsage: ['sglang:token_usage'],
    // Prefix-cache hit ratio from token counters: cached prompt tokens over all prompt tokens.
    prefixHits: ['sglang:cached_tokens_total'],
    prefixQueries: ['sglang:prompt_tokens_total'],
    specAcceptLength: ['sglang:spec_accept_length'],
    promptTokens: ['sglang:prompt_tokens_total'],
    generationTokens: ['sglang:generation_tokens_total'],
  },
  prefixCache: {
    defaultOn: true,
    off: '--disable-radix-cache',
    cachedTokens: { field: OPENAI_CACHED_TOKENS, needs: '--enable-cache-report' },
    words: `${OPENAI_CACHED_TOKENS}, only with --enable-cache-report`,
  },
  settings: {
    seats: SGLANG_FLAGS.seats,
    kv: ['--mem-fraction-static', '--kv-cache-dtype fp8_e4m3'],
    chunk: '--chunked-prefill-size',
  },
  limits: {
    seats: '--max-running-requests requests run at once; the rest wait in its queue',
    kv: 'one token pool (max_total_num_tokens) every running request takes from as it grows',
    combine: 'whichever binds first: the seats, or the pool, which retracts a running request when full',
    layouts: ['pool'],
    overSeats: 'queue',
    unknownFromApi: [],
  },
  errors: {
    contextExceeded: [
      "is longer than the model's context length",
      "exceeds the model's maximum context length",
    ],
    overloaded: [],
    promptTokensIn: [/the input \((\d+) tokens\)/i, /(\d+) tokens from the input/i],
    tooLong: (n, m, x) =>
      x !== undefined && m <= n
        ? `Requested token count exceeds the model's maximum context length of ${n} tokens. You requested a total of ${m + x} tokens: ${m} tokens from the input messages and ${x} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`
        : `The input (${m} tokens) is longer than the model's context length (${n} tokens).`,
  },
  setting: (want) => settingWords(sglang.settings)(want),
  readLaunch,
  sim: {
    launch: (p, host, port) => [
      'python -m sglang.launch_server --model-path',
      p.servedModelName,
      SGLANG_FLAGS.contextLength,
      p.maxModelLen,
      SGLANG_FLAGS.seats,
      p.maxNumSeqs,
      '--chunked-prefill-size',
      p.maxBatchedTokens,
      SGLANG_FLAGS.kv,
      p.kvCapacityTokens,
      p.metrics && '--enable-metrics',
      !p.prefixCaching && '--disable-radix-cache',
      p.promptTokensDetails && '--enable-cache-report',
      ...listenOn(host, port),
    ],
    limits: (p) => ({
      seats: p.maxNumSeqs,
      kvTokens: p.kvCapacityTokens,
      contextLimit: p.maxModelLen,
      layout: 'pool',
      onKvFull: 'preempt',
    }),
  },
};
