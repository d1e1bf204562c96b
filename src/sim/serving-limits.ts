import type { Profile } from './profile-schema.js';

// What bounds one request and the whole KV pool, per flavor. Most engines: one pool of kvCapacityTokens that
// preempts when full, and maxModelLen per request. llama.cpp sizes its KV from the launch flags instead.
export interface ServingLimits {
  contextLimit: number; // tokens one request may hold (prompt + output)
  kvTokens: number; // the scheduler's pool
  onKvExhausted: 'preempt' | 'fail-all';
  llamacpp?: LlamacppKv;
}

export interface LlamacppKv {
  nCtx: number; // the pool after llama.cpp's rounding (-c padded to 256; split: slots x n_ctx_seq)
  nCtxSeq: number; // KV one sequence may address (split: its own share; unified: the pool)
  nCtxSlot: number; // n_ctx_seq capped at the training context: what /props and /slots show
  nCtxTrain: number;
  slots: number;
  unified: boolean;
}

const pad256 = (n: number) => Math.ceil(n / 256) * 256;

// llama.cpp's own arithmetic (llama-context.cpp, server-context.cpp): n_ctx = GGML_PAD(-c, 256); split KV gives
// each of -np slots GGML_PAD(n_ctx / np, 256) and resizes n_ctx to match; unified KV lets every slot address the
// whole pool. The server then caps a slot at the model's training context. Profile mapping: kvCapacityTokens is
// -c, maxNumSeqs is -np, maxModelLen is n_ctx_train, kvUnified is --kv-unified.
export function llamacppKv(
  p: Pick<Profile, 'kvCapacityTokens' | 'maxNumSeqs' | 'maxModelLen' | 'kvUnified'>,
): LlamacppKv {
  const slots = p.maxNumSeqs;
  let nCtx = pad256(p.kvCapacityTokens);
  let nCtxSeq = nCtx;
  if (!p.kvUnified) {
    nCtxSeq = pad256(Math.floor(nCtx / slots));
    nCtx = nCtxSeq * slots;
  }
  return {
    nCtx,
    nCtxSeq,
    nCtxSlot: Math.min(nCtxSeq, p.maxModelLen),
    nCtxTrain: p.maxModelLen,
    slots,
    unified: p.kvUnified,
  };
}

export function servingLimits(p: Profile): ServingLimits {
  if (p.flavor !== 'llamacpp') {
    return {
      contextLimit: p.maxModelLen,
      kvTokens: p.kvCapacityTokens,
      onKvExhausted: 'preempt',
    };
  }
  const kv = llamacppKv(p);
  // Split: a request never outgrows its slot, so the pool never runs short. Unified: slots admit without looking
  // at the pool, and a full pool fails every running request at once ("Context size has been exceeded.").
  return {
    contextLimit: kv.nCtxSlot,
    kvTokens: kv.nCtx,
    onKvExhausted: kv.unified ? 'fail-all' : 'preempt',
    llamacpp: kv,
  };
}
