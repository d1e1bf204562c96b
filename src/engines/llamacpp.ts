import type { EngineFacts, LaunchLimits, LlamacppSlots, ServingLimits } from './types.js';
import { flagValue, hasFlag, intOf, listenOn, runs } from './words.js';

// llama.cpp `llama-server` (docs/engines.md "llama.cpp").

// Its flags that size the slots and the KV (llama-server --help); sweep's links read them too.
export const LLAMACPP_FLAGS = {
  ctx: ['-c', '--ctx-size'],
  parallel: ['-np', '--parallel'],
  unified: ['--kv-unified', '-kvu'],
} as const;

// Without -np the server picks this many slots sharing one unified pool (late-2025 builds on, PR #16486).
export const LLAMACPP_DEFAULT_SLOTS = 4;

export const pad256 = (n: number): number => Math.ceil(n / 256) * 256; // GGML_PAD(n, 256)

// llama.cpp's own arithmetic (llama-context.cpp, server-context.cpp): n_ctx = GGML_PAD(-c, 256); split KV gives each
// of -np slots GGML_PAD(n_ctx / np, 256) and resizes n_ctx to match; unified KV lets every slot address the whole
// pool. The server then caps a slot at the model's training context. The sim, the target's launch-command reader
// and sweep's c/np link all size slots with this.
export function llamacppSlots(o: {
  ctx: number; // -c (after -c 0 became the training context)
  slots: number; // -np
  unified: boolean;
  nCtxTrain?: number;
}): LlamacppSlots {
  let nCtx = pad256(o.ctx);
  let nCtxSeq = nCtx;
  if (!o.unified && o.slots > 1) {
    nCtxSeq = pad256(Math.floor(nCtx / o.slots));
    nCtx = nCtxSeq * o.slots;
  }
  const train = o.nCtxTrain ?? nCtxSeq;
  return {
    nCtx,
    nCtxSeq,
    nCtxSlot: Math.min(nCtxSeq, train),
    nCtxTrain: train,
    slots: o.slots,
    unified: o.unified,
  };
}

// Split: a request never outgrows its slot, so the pool never runs short. Unified: slots admit without looking at the
// pool, and a full pool fails every running request at once ("Context size has been exceeded.").
export function llamacppLimits(
  s: LlamacppSlots,
): Required<Pick<ServingLimits, 'seats' | 'kvTokens' | 'contextLimit' | 'layout' | 'onKvFull' | 'slots'>> {
  return {
    seats: s.slots,
    kvTokens: s.nCtx,
    contextLimit: s.nCtxSlot,
    layout: s.unified ? 'unified' : 'split',
    onKvFull: s.unified ? 'fail-all' : 'never',
    slots: s,
  };
}

// The smallest -c that gives each of `slots` split slots at least `perSlot` tokens (after the padding).
export const ctxForSlots = (slots: number, perSlot: number): number => slots * perSlot;

function readLaunch(words: readonly string[], o: { nCtxTrain?: number }): LaunchLimits | undefined {
  if (!runs(words, /^llama-server(\.exe)?$/)) return undefined;
  const c = intOf(flagValue(words, LLAMACPP_FLAGS.ctx)) ?? 0;
  const ctx = c > 0 ? c : o.nCtxTrain;
  if (!ctx) return undefined;
  const np = intOf(flagValue(words, LLAMACPP_FLAGS.parallel));
  const unified = hasFlag(words, LLAMACPP_FLAGS.unified) || np === undefined;
  const slots = llamacppSlots({
    ctx,
    slots: np ?? LLAMACPP_DEFAULT_SLOTS,
    unified,
    ...(o.nCtxTrain ? { nCtxTrain: o.nCtxTrain } : {}),
  });
  const ctxWords = c > 0 ? `-c ${c}` : `-c 0 (n_ctx_train ${ctx})`;
  const how =
    np === undefined
      ? `no -np: ${LLAMACPP_DEFAULT_SLOTS} slots, unified KV`
      : unified
        ? '--kv-unified'
        : np <= 1
          ? '1 slot'
          : undefined;
  const source = how
    ? `launch command ${ctxWords}, ${how}`
    : `launch command ${ctxWords} -np ${np}: ${np} slots × ${slots.nCtxSeq}`;
  const seatsSource = `launch command ${np === undefined ? `without -np (${LLAMACPP_DEFAULT_SLOTS} slots)` : `-np ${np}`}`;
  return { ...llamacppLimits(slots), source, seatsSource };
}

export const llamacpp: EngineFacts = {
  name: 'llamacpp',
  aliases: ['llama.cpp', 'llama-cpp', 'llama-server'],
  display: 'llama.cpp',
  repository: 'github.com/ggml-org/llama.cpp',
  ownedBy: ['llamacpp'],
  fingerprintPaths: ['/props'],
  extensions: {
    ignoreEos: true,
    minTokens: false,
    streamOptions: true,
    continuousUsage: false,
    maxCompletionTokens: true,
  },
  outputCapFields: (api) => (api === 'chat' ? ['max_tokens', 'max_completion_tokens'] : ['max_tokens']),
  reasoningField: 'reasoning_content',
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
  prefixCache: {
    defaultOn: true, // cache_prompt, per token; a prompt seen before is restored from host memory on any slot
    off: '--no-cache-prompt',
    cachedTokens: { field: 'timings.cache_n' },
    words: 'timings.cache_n (the streaming usage chunk has no details)',
  },
  settings: {
    seats: '-np (--parallel)',
    // Split KV (the default with -np): each slot addresses -c / -np tokens, so more slots need a larger -c.
    seatsNote: 'each slot gets -c / -np tokens unless --kv-unified, so raise -c with it',
    kv: ['-c (--ctx-size)', '--cache-type-k q8_0 --cache-type-v q8_0'],
    chunk: '-b (--batch-size)',
  },
  limits: {
    seats:
      '-np slots: a request beyond them waits for a slot (no response headers until one frees), whatever -c is',
    kv:
      'split (-np without --kv-unified): each slot gets GGML_PAD(n_ctx / np, 256) tokens, capped at the training ' +
      'context, and a request never outgrows its slot; unified (--kv-unified, or no -np: 4 slots): every slot ' +
      'addresses one pool of -c, and a full pool fails every running request at once',
    combine:
      'split: both bind, the slots on users at once and c / np on each request; unified: the slots on users at ' +
      'once, the pool on their tokens together',
    layouts: ['split', 'unified'],
    overSeats: 'queue',
    unknownFromApi: ['layout'],
    // /props shows the same per-slot n_ctx and total_slots for a unified -c 12288 -np 4 as for a split -c 49152 -np 4
    // (docs/engines.md "Serving limits"); so does a "Context size has been exceeded." answer at N x context within
    // slots x n_ctx (a shared pool: src/answer/limits.ts provenShared).
    tellApart: 'the launch command (--launch-command) or --kv-capacity',
  },
  errors: {
    contextExceeded: ['exceeds the available context size', 'context size has been exceeded'],
    contextExceededTypes: ['exceed_context_size_error'],
    // mid-stream, 500, when a unified pool fills: every running request gets it
    poolFull: 'Context size has been exceeded.',
    overloaded: [], // requests beyond the slots are deferred, never refused
    promptTokensIn: [/request \((\d+) tokens\) exceeds/i, /n_prompt_tokens"?\s*[:=]\s*(\d+)/i],
    tooLong: (n, m) =>
      `request (${m} tokens) exceeds the available context size (${n} tokens), try increasing it`,
  },
  // -c sizes the pool the slots split (or share): the KV is given as -c itself.
  setting: (want) =>
    [
      want.seats !== undefined ? `${LLAMACPP_FLAGS.parallel[0]} ${want.seats}` : '',
      want.kvTokens !== undefined ? `${LLAMACPP_FLAGS.ctx[0]} ${want.kvTokens.toLocaleString('en-US')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
  readLaunch,
  // Profile mapping: kvCapacityTokens is -c, maxNumSeqs is -np, maxModelLen is n_ctx_train, kvUnified is --kv-unified.
  sim: {
    launch: (p, host, port) => [
      'llama-server -m',
      `${p.servedModelName}.gguf`,
      '-a',
      p.servedModelName,
      LLAMACPP_FLAGS.ctx[0],
      p.kvCapacityTokens,
      LLAMACPP_FLAGS.parallel[0],
      p.maxNumSeqs,
      p.kvUnified && LLAMACPP_FLAGS.unified[0],
      '-b',
      p.maxBatchedTokens,
      p.metrics && '--metrics',
      ...listenOn(host, port),
    ],
    limits: (p) => {
      const s = llamacppSlots({
        ctx: p.kvCapacityTokens,
        slots: p.maxNumSeqs,
        unified: p.kvUnified,
        nCtxTrain: p.maxModelLen,
      });
      return llamacppLimits(s);
    },
  },
};
