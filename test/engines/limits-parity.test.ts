import { afterEach, describe, expect, it } from 'vitest';
import { limitsFromLaunch, type ServingLimits } from '../../src/engines/index.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import type { Flavor, Profile } from '../../src/sim/profile-schema.js';
import { servingLimits } from '../../src/sim/serving-limits.js';
import { flavorFacts } from '../../src/engines/index.js';
import { probeTarget } from '../../src/target/probe.js';

// The sim's flavors held to the limit model their engine files state (docs/architecture.md "Engine facts"): per flavor
// and profile, the limits the sim's scheduler runs under equal what the engine file reads from the sim's own launch
// command (GET /sim/launch), and the probe, given that command, finds the same KV capacity and context. The llama.cpp
// figures are hand-computed with llama.cpp's padding (docs/sim.md "llama.cpp KV").
const noHw = { source: 'none' as const };

interface Case {
  name: string;
  flavor: Flavor;
  overrides: Partial<Profile>;
  expect?: ServingLimits; // hand-computed
}

const CASES: Case[] = [
  { name: 'vLLM, tiny', flavor: 'vllm', overrides: {} },
  // 6,000 tokens in blocks of 16: --num-gpu-blocks-override 375, 6,000 tokens
  {
    name: 'vLLM, 4 seats, 6,000 tokens',
    flavor: 'vllm',
    overrides: { maxNumSeqs: 4, kvCapacityTokens: 6000, maxModelLen: 4096 },
    expect: { seats: 4, kvTokens: 6000, contextLimit: 4096, layout: 'pool', onKvFull: 'preempt' },
  },
  {
    name: 'SGLang, 8 seats',
    flavor: 'sglang',
    overrides: { maxNumSeqs: 8, kvCapacityTokens: 50_000 },
    expect: { seats: 8, kvTokens: 50_000, contextLimit: 32_768, layout: 'pool' },
  },
  // -c 8192 -np 3: n_ctx 8192, per slot GGML_PAD(2730, 256) = 2816, pool 3 x 2816 = 8448
  {
    name: 'llama.cpp split, -c 8192 -np 3',
    flavor: 'llamacpp',
    overrides: { kvCapacityTokens: 8192, maxNumSeqs: 3, maxModelLen: 32_768 },
    expect: { seats: 3, kvTokens: 8448, contextLimit: 2816, layout: 'split', onKvFull: 'never' },
  },
  // -c 200000 -np 4: n_ctx GGML_PAD(200000, 256) = 200192, per slot GGML_PAD(50048, 256) = 50176, pool 200,704
  {
    name: 'llama.cpp split, -c 200000 -np 4',
    flavor: 'llamacpp',
    overrides: { kvCapacityTokens: 200_000, maxNumSeqs: 4, maxModelLen: 262_144 },
    expect: { seats: 4, kvTokens: 200_704, contextLimit: 50_176, layout: 'split' },
  },
  // a real llama-server seen so (docs/engines.md "Serving limits"): 4 slots x 8,192
  {
    name: 'llama.cpp split, -c 32768 -np 4',
    flavor: 'llamacpp',
    overrides: { kvCapacityTokens: 32_768, maxNumSeqs: 4, maxModelLen: 32_768 },
    expect: { seats: 4, kvTokens: 32_768, contextLimit: 8192, layout: 'split' },
  },
  // unified: every slot addresses the whole 12,288-token pool
  {
    name: 'llama.cpp unified, -c 12288 -np 4 --kv-unified',
    flavor: 'llamacpp',
    overrides: { kvCapacityTokens: 12_288, maxNumSeqs: 4, maxModelLen: 32_768, kvUnified: true },
    expect: { seats: 4, kvTokens: 12_288, contextLimit: 12_288, layout: 'unified', onKvFull: 'fail-all' },
  },
  // unified over the training context: a slot capped at 32,768 on a 65,536-token pool
  {
    name: 'llama.cpp unified, -c 65536 over a 32K model',
    flavor: 'llamacpp',
    overrides: { kvCapacityTokens: 65_536, maxNumSeqs: 4, maxModelLen: 32_768, kvUnified: true },
    expect: { seats: 4, kvTokens: 65_536, contextLimit: 32_768, layout: 'unified' },
  },
  {
    name: 'TGI, 8 in a batch, 429 beyond 16',
    flavor: 'tgi',
    overrides: { maxNumSeqs: 8, maxConcurrentRequests: 16, kvCapacityTokens: 100_000 },
    expect: { seats: 8, kvTokens: 100_000, contextLimit: 32_768, layout: 'token-budget', admission: 16 },
  },
  // 4 parallel requests with 8,192 each: 32,768 tokens of KV
  {
    name: 'Ollama, OLLAMA_NUM_PARALLEL=4, OLLAMA_CONTEXT_LENGTH=8192',
    flavor: 'ollama',
    overrides: { maxNumSeqs: 4, maxModelLen: 8192, maxQueue: 64 },
    expect: { seats: 4, kvTokens: 32_768, contextLimit: 8192, layout: 'per-request', onKvFull: 'never' },
  },
  { name: 'TensorRT-LLM, tiny', flavor: 'trtllm', overrides: { maxNumSeqs: 12 } },
];

const FIELDS = ['seats', 'kvTokens', 'contextLimit', 'layout', 'onKvFull', 'admission'] as const;

describe('sim flavors against their engine files (limits parity)', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  it.each(CASES)('$name', async (c) => {
    sim = await startSim({ profile: 'tiny', flavor: c.flavor, overrides: c.overrides });
    const command = ((await (await fetch(`${sim.url}/sim/launch`)).json()) as { command: string }).command;
    const own = flavorFacts(c.flavor).sim!.limits(sim.profile); // what the scheduler runs under
    const scheduler = servingLimits(sim.profile);
    expect([scheduler.kvTokens, scheduler.contextLimit]).toEqual([own.kvTokens, own.contextLimit]);

    // llama.cpp caps a slot at the training context, which /v1/models states (as the probe reads it)
    const models = (await (await fetch(`${sim.baseUrl}/models`)).json()) as {
      data?: Array<{ meta?: { n_ctx_train?: number } }>;
    };
    const nCtxTrain = models.data?.[0]?.meta?.n_ctx_train;
    const read = limitsFromLaunch(c.flavor, command, nCtxTrain ? { nCtxTrain } : {});
    expect(read, command).toBeDefined();
    // Every limit the launch command states is the one the sim runs under; seats and the context always are.
    const stated = FIELDS.filter((f) => read![f] !== undefined);
    expect(stated).toEqual(expect.arrayContaining(['seats', 'contextLimit', 'layout']));
    for (const f of stated) expect(read![f], `${f} in ${command}`).toEqual(own[f]);
    if (c.flavor !== 'trtllm') expect(stated).toContain('kvTokens'); // its pool is a share of GPU memory
    if (c.expect) expect(own).toMatchObject(c.expect);
    if (c.flavor === 'llamacpp') expect(read!.slots).toEqual(own.slots);

    // The target's reader: the probe given the same command finds the same pool and per-request context.
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw, launchCommand: command });
    if (read!.kvTokens !== undefined) expect(info.kvCapacityTokens).toBe(own.kvTokens);
    if (c.flavor === 'llamacpp' || c.flavor === 'vllm' || c.flavor === 'sglang')
      expect(info.maxModelLen).toBe(own.contextLimit);
  });
});
