import { flavorFacts, type KvLayout, type LlamacppSlots } from '../engines/index.js';
import type { Profile } from './profile-schema.js';

// What bounds one request and the whole KV pool, per flavor: the engine's own limit model (src/engines), read from
// the profile as the engine reads its flags (docs/sim.md "llama.cpp KV"). Most engines: one pool of
// kvCapacityTokens that preempts when full, and maxModelLen per request; llama.cpp sizes its slots from -c and -np;
// Ollama gives each parallel request a context of its own.
export interface ServingLimits {
  contextLimit: number; // tokens one request may hold (prompt + output)
  kvTokens: number; // the scheduler's pool
  onKvExhausted: 'preempt' | 'fail-all';
  layout?: KvLayout; // split slots and Ollama's contexts never run short of KV: the plan runs what they queue
  llamacpp?: LlamacppSlots;
}

export function servingLimits(p: Profile): ServingLimits {
  const l = flavorFacts(p.flavor).sim!.limits(p);
  return {
    contextLimit: l.contextLimit,
    kvTokens: l.kvTokens,
    onKvExhausted: l.onKvFull === 'fail-all' ? 'fail-all' : 'preempt',
    ...(l.layout ? { layout: l.layout } : {}),
    ...(l.slots ? { llamacpp: l.slots } : {}),
  };
}
