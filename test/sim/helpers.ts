import { ProfileSchema, type Profile, type ProfileInput } from '../../src/sim/profile-schema.js';
import type { RequestSpec, Scheduler } from '../../src/sim/scheduler.js';

// A small engine with round numbers: prefill 1 ms per token, decode 10 ms (batch 1) .. 12 ms (batch 2+).
export function testProfile(over: Partial<ProfileInput> = {}): Profile {
  return ProfileSchema.parse({
    name: 'unit',
    servedModelName: 'sim/unit',
    maxModelLen: 1000,
    kvCapacityTokens: 1600,
    blockSize: 16,
    maxNumSeqs: 2,
    maxBatchedTokens: 64,
    prefillTokensPerS: [[16, 1000]],
    decodeStepMs: [
      [1, 10],
      [2, 12],
    ],
    earlyStopRate: 0,
    ...over,
  });
}

// Distinct prompts get distinct block hashes; the same `prefix` gives the same leading hashes.
export function req(
  id: string,
  promptTokens: number,
  maxTokens: number,
  o: Partial<RequestSpec> & { prefix?: number } = {},
): RequestSpec {
  const prefix = o.prefix ?? hashId(id);
  return {
    id,
    arrivalMs: o.arrivalMs ?? 0,
    promptTokens,
    blockHashes: Array.from({ length: Math.floor(promptTokens / 16) }, (_, i) => prefix * 10_000 + i),
    maxTokens,
    ...(o.minTokens !== undefined ? { minTokens: o.minTokens } : {}),
    ...(o.ignoreEos !== undefined ? { ignoreEos: o.ignoreEos } : {}),
  };
}

function hashId(id: string): number {
  let h = 7;
  for (const c of id) h = (h * 31 + c.charCodeAt(0)) % 100_000;
  return h + 1;
}

export interface Ev {
  t: number;
  id: string;
  n: number;
  finish?: string;
  reasoning: number;
}

// Runs the scheduler back to back in virtual time until idle; returns every emission with its step end time.
export function drive(s: Scheduler, startMs = 0, maxSteps = 100_000, untilMs = Infinity): Ev[] {
  const log: Ev[] = [];
  let t = startMs;
  for (let i = 0; i < maxSteps && t < untilMs; i++) {
    const plan = s.plan(t);
    if (!plan) break;
    for (const e of s.complete(plan)) {
      const ev: Ev = { t: plan.endMs, id: e.seq.id, n: e.tokens, reasoning: e.reasoningTokens };
      if (e.finish) ev.finish = e.finish;
      log.push(ev);
    }
    t = plan.endMs;
  }
  return log;
}
