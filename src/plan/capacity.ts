import { kvDemandTokens } from '../cell-rules.js';
import { ownKvShare, type KvLayout } from '../engines/index.js';
// How sure a KV capacity is: 'exact' from the engine's own report, the launch command or a flag; 'lower-bound'
// when the pool holds at least this (llama.cpp's API shows one slot of a unified pool); 'inferred' when the API
// figure rests on an assumption it cannot confirm (llama.cpp split KV read from slot n_ctx).
export const KV_BOUNDS = ['exact', 'lower-bound', 'inferred'] as const;
export type KvBound = (typeof KV_BOUNDS)[number];

// Over capacity (docs/method.md "Plan"): the KV demand N * (C + maxOutput) exceeds the KV capacity the running requests
// share. Unknown capacity: run it, let the server decide. Where each request holds a share of its own (llama.cpp split
// slots, Ollama's contexts: src/engines ownKvShare) the pool never runs short: N beyond the seats wait for one.
export function isOverCapacity(
  contextTokens: number,
  concurrency: number,
  maxOutput: number,
  kvCapacityTokens: number | undefined,
  kvLayout?: KvLayout,
): boolean {
  if (kvCapacityTokens === undefined || ownKvShare(kvLayout)) return false;
  return kvDemandTokens(contextTokens, concurrency, maxOutput) > kvCapacityTokens;
}

// Room a decode request needs inside maxModelLen: prompt + output cap (the server rejects more).
export function fitsModelLen(
  contextTokens: number,
  maxOutput: number,
  maxModelLen: number | undefined,
): boolean {
  return maxModelLen === undefined || contextTokens + maxOutput <= maxModelLen;
}

// A cell the capacity rule would skip but that is measured anyway, so the server rather than our figure decides:
// the capacity is only a bound (llama.cpp's API shows one slot of a unified pool), or --verify-capacity asked.
export interface CapacityCheck {
  needTokens: number; // N * (C + maxOutput)
  kvCapacityTokens: number;
  bound: KvBound;
  why: 'bound' | 'verify';
}

// Which Over capacity cell of one context, if any, to measure: the first (lowest N) over the capacity, when the
// capacity is not exact or the user asked to verify. One cell per context: it settles the question for that
// context, and a cell that runs whole raises the bound for the rest (raisedCapacity).
export function capacityCheckFor(
  needTokens: number,
  kvCapacityTokens: number,
  bound: KvBound,
  verify: boolean,
): CapacityCheck | undefined {
  if (bound !== 'exact') return { needTokens, kvCapacityTokens, bound, why: 'bound' };
  return verify ? { needTokens, kvCapacityTokens, bound, why: 'verify' } : undefined;
}

// Whether a measured check cell upheld the rule: Over capacity predicted that the server cannot run all N at once.
// Valid without failed requests means it did (the capacity is larger than the figure); queued, failed, or requests
// ended by the server (llama.cpp's full unified pool ends every running request mid-stream) mean the rule held.
export function capacityRuleHeld(status: string, failedRequests = 0): boolean {
  return status !== 'Valid' || failedRequests > 0;
}
