import type { EngineFacts, LaunchLimits } from './types.js';
import { intFlag, listenOn, runs } from './words.js';

// Hugging Face TGI, router v3 (docs/engines.md "TGI"): a token budget the batch is admitted under, and a cap on
// requests in flight beyond which it answers 429.

export const TGI_FLAGS = {
  budget: '--max-batch-total-tokens',
  batchSize: '--max-batch-size', // enforced where set; on GPUs with unpadded inference usually left unset
  admission: '--max-concurrent-requests',
  maxTotal: '--max-total-tokens',
} as const;

function readLaunch(words: readonly string[]): LaunchLimits | undefined {
  if (!runs(words, /^text-generation-(launcher|router)$/)) return undefined;
  const budget = intFlag(words, [TGI_FLAGS.budget]);
  const seats = intFlag(words, [TGI_FLAGS.batchSize]);
  const admission = intFlag(words, [TGI_FLAGS.admission]);
  const maxTotal = intFlag(words, [TGI_FLAGS.maxTotal]);
  if (!budget && !seats && !admission && !maxTotal) return undefined;
  return {
    ...(seats ? { seats, seatsSource: `launch command ${TGI_FLAGS.batchSize} ${seats}` } : {}),
    ...(budget ? { kvTokens: budget } : {}),
    ...(maxTotal ? { contextLimit: maxTotal } : {}),
    ...(admission ? { admission } : {}),
    layout: 'token-budget',
    source: `launch command ${budget ? `${TGI_FLAGS.budget} ${budget}` : TGI_FLAGS.admission}`,
  };
}

export const tgi: EngineFacts = {
  name: 'tgi',
  aliases: ['text-generation-inference'],
  display: 'TGI',
  repository: 'github.com/huggingface/text-generation-inference',
  ownedBy: [],
  fingerprintPaths: ['/info'],
  // No `min_tokens` / `ignore_eos` (silently ignored) and no continuous usage.
  extensions: {
    ignoreEos: false,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: true,
  },
  // max_completion_tokens is only an alias here; one field is enough.
  outputCapFields: () => ['max_tokens'],
  metricNames: {
    running: ['tgi_batch_current_size'],
    waiting: ['tgi_queue_size'],
  },
  prefixCache: {
    defaultOn: true, // PREFIX_CACHING, auto-disabled for VLMs, LoRA and some head sizes
    off: 'PREFIX_CACHING=0',
    words: 'not reported',
  },
  settings: {
    seats: TGI_FLAGS.batchSize,
    // On GPUs with unpadded inference the running batch is bounded by tokens, not by a request count.
    seatsNote: `where it is not set, the batch is bounded by ${TGI_FLAGS.budget} alone`,
    kv: ['--cuda-memory-fraction', TGI_FLAGS.budget],
    chunk: '--max-batch-prefill-tokens',
    admission: TGI_FLAGS.admission,
  },
  limits: {
    seats:
      'no request count on GPUs with unpadded inference (--max-batch-size only where set): the batch takes ' +
      'requests while their tokens fit the budget',
    kv: 'a token budget (--max-batch-total-tokens) each request is admitted under with its prompt and max_new_tokens',
    combine:
      'the budget bounds users at once; beyond --max-concurrent-requests in flight requests are refused with 429, ' +
      'not queued',
    layouts: ['token-budget'],
    overSeats: 'queue',
    unknownFromApi: [],
  },
  errors: {
    contextExceeded: ['`max_new_tokens` must be <=', '`inputs` must have less than'],
    overloaded: ['model is overloaded'],
    promptTokensIn: [],
    tooLong: (n, m, x) =>
      x !== undefined && m <= n
        ? `\`inputs\` tokens + \`max_new_tokens\` must be <= ${n}. Given: ${m} \`inputs\` tokens and ${x} \`max_new_tokens\``
        : `\`inputs\` must have less than ${n} tokens. Given: ${m}`,
    overloadMessage: 'Model is overloaded',
  },
  // The batch is bounded by its token budget: more users at once need a larger one (or --max-batch-size where set).
  setting: (want) =>
    [
      want.kvTokens !== undefined ? `${TGI_FLAGS.budget} ${want.kvTokens.toLocaleString('en-US')}` : '',
      want.seats !== undefined && want.kvTokens === undefined ? `${TGI_FLAGS.batchSize} ${want.seats}` : '',
    ]
      .filter(Boolean)
      .join(' '),
  readLaunch,
  // The sim's batch holds at most maxNumSeqs: written as --max-batch-size, which TGI enforces where set. Its paged
  // pool preempts where TGI reserves a request's max_new_tokens at admission (docs/sim.md "Flavors").
  sim: {
    launch: (p, host, port) => [
      'text-generation-launcher --model-id',
      p.servedModelName,
      TGI_FLAGS.maxTotal,
      p.maxModelLen,
      '--max-input-tokens',
      p.maxModelLen - 1,
      TGI_FLAGS.budget,
      p.kvCapacityTokens,
      TGI_FLAGS.batchSize,
      p.maxNumSeqs,
      TGI_FLAGS.admission,
      p.maxConcurrentRequests,
      '--max-batch-prefill-tokens',
      p.maxBatchedTokens,
      ...listenOn(host, port, '--hostname'),
    ],
    limits: (p) => ({
      seats: p.maxNumSeqs,
      kvTokens: p.kvCapacityTokens,
      contextLimit: p.maxModelLen,
      layout: 'token-budget',
      onKvFull: 'preempt',
      admission: p.maxConcurrentRequests,
    }),
  },
};
