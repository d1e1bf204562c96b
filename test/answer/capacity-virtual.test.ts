import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerOf } from '../../src/answer/answer.js';
import type { RunResult, ServiceLevel } from '../../src/results/schema.js';
import type { Flavor, ProfileInput } from '../../src/sim/profile-schema.js';
import { adapterByName } from '../../src/target/engines/index.js';
import { runVirtual, virtualSettings } from '../bench/virtual-run.js';

// Issue 25's acceptance: the capacity under a service level and the reason of its limit, through the real runner
// on the sim's flavors in virtual time, where the seats, the KV cache and the per-user speed are set by hand. The
// engine decodes one token per step, a step taking 10 ms alone, 12.5 ms for 4, 20 ms for 8 and 40 ms for 16
// sequences: each request decodes at 100, 80, 50 and 25 tok/s. A 1K prompt, answers of 32 tokens and 4 s windows
// give 30 to 200 requests a cell. The level asks 40 tok/s each and a first token within 200 ms (a queued request
// waits a whole answer, 0.4 s or more) for 90% of requests.
const SLO: ServiceLevel = { ttftMs: 200, tokensPerS: 40, share: 0.9 };

function profile(flavor: Flavor, seats: number, kvTokens: number): ProfileInput {
  return {
    name: `capacity-${flavor}`,
    description: 'known seats and speeds',
    flavor,
    servedModelName: 'sim/capacity',
    maxModelLen: Math.min(8192, kvTokens), // vLLM holds one whole request at least
    kvCapacityTokens: kvTokens,
    blockSize: 16,
    maxNumSeqs: seats,
    maxBatchedTokens: 8192,
    prefillTokensPerS: [
      [1024, 200_000],
      [8192, 200_000],
    ],
    decodeStepMs: [
      [1, 10],
      [4, 12.5],
      [8, 20],
      [16, 40],
    ],
    decodeContextSlopeMsPerMTokens: 0,
    prefillOnlyStepMs: 0.5,
    speculative: null,
    reasoningTokens: 0,
    earlyStopRate: 0,
    engine: { version: '1.0-sim' },
    hardware: { gpuName: 'Simulated GPU', gpuCount: 1, gpuMemoryGb: 24 },
  };
}

async function measure(flavor: Flavor, seats: number, kvTokens: number): Promise<RunResult> {
  const { result, error } = await runVirtual(
    virtualSettings(mkdtempSync(join(tmpdir(), 'lib-capacity-')), {
      contexts: [1024],
      prefillContexts: [1024],
      prefillRepeats: 1,
      concurrency: [1, 2, 4, 8, 16],
      maxOutput: 32,
      duration: 4,
    }),
    {
      sim: { profile: profile(flavor, seats, kvTokens), seed: 3, overrides: { metrics: false } },
      info: {
        engine: { name: flavor, version: '1.0-sim' },
        extensions: adapterByName(flavor).extensions,
        // What each engine's probe finds: Ollama reports no KV capacity.
        ...(flavor === 'ollama' ? { kvCapacityTokens: undefined } : { kvCapacityTokens: kvTokens }),
      },
    },
  );
  expect(error).toBeUndefined();
  return result;
}

function summary(r: RunResult) {
  const a = answerOf(r, SLO);
  const c = a.contexts[0]!;
  return {
    verdicts: c.cells.map((j) => `${j.cell.concurrency} ${j.cell.status} ${j.verdict}`),
    capacity: c.capacity?.cell.concurrency,
    reason: c.reason.kind,
    users: c.reason.users,
    seats: c.reason.seats,
    setting: c.reason.setting,
    change: c.reason.change,
  };
}

describe('capacity under a service level and why it stops there (virtual time, sim flavors)', () => {
  it('vLLM, per-user speed: 8 users at 50 tok/s meet 40 tok/s, 16 at 25 do not', async () => {
    const s = summary(await measure('vllm', 16, 200_000));
    expect(s.verdicts).toEqual([
      '1 Valid meets',
      '2 Valid meets',
      '4 Valid meets',
      '8 Valid meets',
      '16 Valid fails',
    ]);
    expect(s).toMatchObject({ capacity: 8, reason: 'speed', users: 16 });
    expect(s.change).toContain('no setting raises it');
  });

  it.each([
    ['vllm', '--max-num-seqs'],
    ['llamacpp', '-np (--parallel)'],
    ['ollama', 'OLLAMA_NUM_PARALLEL'],
  ] as const)(
    '%s, queue-bound: 4 seats take 4 users; at 8 requests wait and the seats setting is named',
    async (flavor, setting) => {
      const s = summary(await measure(flavor, 4, 200_000));
      expect(s.verdicts).toEqual([
        '1 Valid meets',
        '2 Valid meets',
        '4 Valid meets',
        '8 Requests queued fails',
        '16 Requests queued fails',
      ]);
      expect(s).toMatchObject({ capacity: 4, reason: 'queue', users: 8, seats: 4, setting });
      expect(s.change).toContain(`raise ${setting} (about 4 now)`);
    },
  );

  it.each([
    // vLLM: 6,000 tokens hold 4 x (1K + 32) = 4,224 but not 8 x 1,056 = 8,448.
    ['vllm', 16, 6000, 4, 8, '--gpu-memory-utilization'],
    // llama.cpp: -c 10,240 over 8 slots of 1,280 holds 8 x 1,056 but not 16.
    ['llamacpp', 8, 10_240, 8, 16, '-c (--ctx-size)'],
  ] as const)(
    '%s, KV-bound: the first level over the KV cache is the limit',
    async (flavor, seats, kv, capacity, over, setting) => {
      const s = summary(await measure(flavor, seats, kv));
      expect(s.verdicts.at(-1)).toBe('16 Over capacity fails');
      expect(s).toMatchObject({ capacity, reason: 'kv', users: over, setting });
      expect(s.change).toContain(setting);
    },
  );
});
