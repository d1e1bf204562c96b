import { describe, expect, it } from 'vitest';
import { buildPlan, type PlanInput } from '../../src/plan/plan.js';
import { isOverCapacity } from '../../src/plan/capacity.js';
import { measureEngine } from '../answer/engine-rig.js';

// The capacity rule follows the engine's limit model (docs/method.md "Plan", src/engines ownKvShare): where each
// request holds a share of the KV of its own (llama.cpp split slots, Ollama's contexts) the pool never runs short,
// so N beyond the slots are run (the server queues them) and a request longer than its share is Too long.
// llama-server -c 32768 -np 4: 4 slots of GGML_PAD(32768 / 4, 256) = 8,192; 4K prompts with answers up to 4,096
// fill one slot exactly (8,192), so 4 fit at once and 8 need 65,536 > 32,768 tokens.
const cells = (p: PlanInput) =>
  buildPlan(p).cells.map((c) => `${c.contextTokens}x${c.concurrency}:${c.status}`);
const SERVER: PlanInput = {
  maxModelLen: 8192, // the slot's context, as /props shows it
  kvCapacityTokens: 32_768,
  maxOutput: 4096,
  contexts: [4096, 6144],
  concurrency: [1, 4, 8],
};

describe('the plan on each KV layout', () => {
  it('llama.cpp split -c 32768 -np 4: 8 users at 4K run (they queue for the 4 slots); 6K + 4K is longer than a slot', () => {
    expect(cells({ ...SERVER, kvLayout: 'split' })).toEqual([
      '4096x1:run',
      '4096x4:run',
      '4096x8:run',
      // 6,144 + 4,096 = 10,240 > 8,192: the slot refuses it whatever the load
      '6144x1:Too long',
      '6144x4:Too long',
      '6144x8:Too long',
    ]);
  });

  it("Ollama's contexts (OLLAMA_NUM_PARALLEL=4, OLLAMA_CONTEXT_LENGTH=8192): the same", () => {
    expect(cells({ ...SERVER, contexts: [4096], kvLayout: 'per-request' })).toEqual([
      '4096x1:run',
      '4096x4:run',
      '4096x8:run',
    ]);
  });

  it('a pool the requests share (vLLM, llama.cpp unified, or unknown): 8 × 8,192 = 65,536 > 32,768 is Over capacity', () => {
    for (const kvLayout of ['pool', 'unified', undefined] as const)
      expect(cells({ ...SERVER, contexts: [4096], ...(kvLayout ? { kvLayout } : {}) })).toEqual([
        '4096x1:run',
        '4096x4:run', // 4 × 8,192 = 32,768: exactly at capacity runs
        '4096x8:Over capacity',
      ]);
    expect(isOverCapacity(4096, 8, 4096, 32_768)).toBe(true);
    expect(isOverCapacity(4096, 8, 4096, 32_768, 'split')).toBe(false);
    expect(isOverCapacity(4096, 8, 4096, 32_768, 'per-request')).toBe(false);
  });
});

describe('run in virtual time on the sim, found as the probe finds it (its launch command read)', () => {
  const engine = {
    seats: 4,
    contexts: [4096],
    concurrency: [4, 8],
    kvTokens: 32_768,
    launch: true,
    maxOutput: 4096,
  };
  it('llama.cpp -c 32768 -np 4 at 4K with answers up to 4,096: 8 users are measured, Requests queued', async () => {
    const r = await measureEngine({ ...engine, flavor: 'llamacpp', overrides: { maxModelLen: 32_768 } });
    expect(r.target).toMatchObject({ kvLayout: 'split', kvCapacityTokens: 32_768, kvCapacityBound: 'exact' });
    expect(r.decode.map((c) => `${c.concurrency} ${c.status}`)).toEqual(['4 Valid', '8 Requests queued']);
  });

  it('Ollama with 4 parallel contexts of 8,192: the same', async () => {
    const r = await measureEngine({ ...engine, flavor: 'ollama' });
    expect(r.target).toMatchObject({ kvCapacityTokens: 32_768, seats: 4 });
    expect(r.decode.map((c) => `${c.concurrency} ${c.status}`)).toEqual(['4 Valid', '8 Requests queued']);
  });

  it('llama.cpp unified (--kv-unified): one pool, so 8 users are not run', async () => {
    const r = await measureEngine({
      ...engine,
      flavor: 'llamacpp',
      overrides: { maxModelLen: 32_768, kvUnified: true },
    });
    expect(r.target).toMatchObject({ kvLayout: 'unified', kvCapacityTokens: 32_768 });
    expect(r.decode.map((c) => `${c.concurrency} ${c.status}`)).toEqual(['4 Valid', '8 Over capacity']);
  });
});
