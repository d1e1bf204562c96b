import type { EngineFacts, LaunchLimits } from './types.js';
import { intFlag, runs } from './words.js';

// Ollama's OpenAI compatibility layer (docs/engines.md "Ollama"): OLLAMA_NUM_PARALLEL requests at once, each with a
// context of its own, and a queue of OLLAMA_MAX_QUEUE beyond which it answers 503. Its limits are environment
// variables of `ollama serve`.

export const OLLAMA_ENV = {
  parallel: 'OLLAMA_NUM_PARALLEL',
  context: 'OLLAMA_CONTEXT_LENGTH',
  queue: 'OLLAMA_MAX_QUEUE',
  host: 'OLLAMA_HOST',
} as const;
export const OLLAMA_DEFAULT_PARALLEL = 1;
const DEFAULT_QUEUE = 512;

// Only what the command line states: the variables are as often in the server's environment (a systemd unit), which
// /proc's command line does not show, so an absent one is unknown, not its default.
function readLaunch(words: readonly string[]): LaunchLimits | undefined {
  if (!runs(words, /^ollama$/)) return undefined;
  const seats = intFlag(words, [OLLAMA_ENV.parallel]);
  const ctx = intFlag(words, [OLLAMA_ENV.context]);
  const queue = intFlag(words, [OLLAMA_ENV.queue]);
  const stated = [
    seats ? `${OLLAMA_ENV.parallel}=${seats}` : '',
    ctx ? `${OLLAMA_ENV.context}=${ctx}` : '',
  ].filter(Boolean);
  if (!stated.length) return undefined;
  return {
    ...(seats ? { seats, seatsSource: `launch command ${OLLAMA_ENV.parallel}=${seats}` } : {}),
    // Each parallel request has a context of its own, so the KV is their sum.
    ...(ctx ? { contextLimit: ctx } : {}),
    ...(seats && ctx ? { kvTokens: seats * ctx } : {}),
    layout: 'per-request',
    onKvFull: 'never',
    admission: queue ?? DEFAULT_QUEUE,
    source: `launch command ${stated.join(', ')}`,
  };
}

export const ollama: EngineFacts = {
  name: 'ollama',
  aliases: [],
  display: 'Ollama',
  repository: 'github.com/ollama/ollama',
  ownedBy: [],
  fingerprintPaths: ['/api/version'],
  // max_completion_tokens is not in its request struct: only max_tokens caps the output.
  extensions: {
    ignoreEos: false,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: false,
  },
  outputCapFields: () => ['max_tokens'],
  reasoningField: 'reasoning',
  metricNames: {},
  prefixCache: {
    defaultOn: true, // the runner's prompt cache, always on
    words: 'not reported (usage.prompt_tokens includes cached tokens)',
  },
  settings: {
    seats: OLLAMA_ENV.parallel,
    seatsNote: 'each parallel request gets its own context, so memory grows with it',
    kv: [OLLAMA_ENV.context, 'OLLAMA_KV_CACHE_TYPE=q8_0 (with OLLAMA_FLASH_ATTENTION=1)'],
  },
  limits: {
    seats: `${OLLAMA_ENV.parallel} requests run at once (default ${OLLAMA_DEFAULT_PARALLEL}); the rest queue, and beyond ${OLLAMA_ENV.queue} (default ${DEFAULT_QUEUE}) get 503`,
    kv: `each parallel request has a context of its own (${OLLAMA_ENV.context}), so the KV is their sum; the API reports none of it`,
    combine: `the seats bind; raising them needs memory for one more context each, which the API does not show`,
    layouts: ['per-request'],
    overSeats: 'queue',
    unknownFromApi: ['kv'],
    // Its launch command states the KV it has (seats × context), not the memory more seats would need.
    tellApart: '--kv-capacity, the KV cache its memory holds,',
  },
  errors: {
    contextExceeded: ['input length exceeds the context length'],
    overloaded: ['maximum pending requests exceeded', 'server busy, please try again'],
    promptTokensIn: [],
    tooLong: () => 'the input length exceeds the context length',
    overloadMessage: 'server busy, please try again.  maximum pending requests exceeded',
  },
  // An environment variable of `ollama serve`; the KV follows from it and the context length, sized by memory.
  setting: (want) =>
    [
      want.seats !== undefined ? `${OLLAMA_ENV.parallel}=${want.seats}` : '',
      want.kvTokens !== undefined
        ? `memory for ${want.kvTokens.toLocaleString('en-US')} tokens of KV cache`
        : '',
    ]
      .filter(Boolean)
      .join(' and '),
  readLaunch,
  sim: {
    launch: (p, host, port) => [
      `${OLLAMA_ENV.host}=${host}:${port}`,
      `${OLLAMA_ENV.parallel}=${p.maxNumSeqs}`,
      `${OLLAMA_ENV.context}=${p.maxModelLen}`,
      `${OLLAMA_ENV.queue}=${p.maxQueue}`,
      'ollama serve',
    ],
    limits: (p) => ({
      seats: p.maxNumSeqs,
      kvTokens: p.maxNumSeqs * p.maxModelLen,
      contextLimit: p.maxModelLen,
      layout: 'per-request',
      onKvFull: 'never',
      admission: p.maxQueue,
    }),
  },
};
