import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RunResult, ServiceLevel } from '../../src/results/schema.js';
import type { Flavor, ProfileInput } from '../../src/sim/profile-schema.js';
import { adapterByName } from '../../src/target/engines/index.js';
import { runVirtual, virtualSettings } from '../bench/virtual-run.js';

// A sim engine with known seats, KV cache and per-user speed, measured by the real runner in virtual time (issue
// 25's acceptance). It decodes one token per step, a step taking 10 ms alone, 12.5 ms for 4, 20 ms for 8 and 40 ms
// for 16 sequences: each request decodes at 100, 80, 50 and 25 tok/s. A 1K prompt, answers of 32 tokens and 4 s
// windows give 30 to 200 requests a cell. SLO asks 40 tok/s each and a first token within 200 ms (a queued
// request waits a whole answer, 0.4 s or more) for 90% of requests.
export const SLO: ServiceLevel = { ttftMs: 200, tokensPerS: 40, share: 0.9 };

export function profile(flavor: Flavor, seats: number, kvTokens: number): ProfileInput {
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

export async function measureCapacity(
  flavor: Flavor,
  seats: number,
  kvTokens: number,
  contexts: number[] = [1024],
): Promise<{ result: RunResult; dir: string }> {
  const { result, error, dir } = await runVirtual(
    virtualSettings(mkdtempSync(join(tmpdir(), 'lib-capacity-')), {
      contexts,
      prefillContexts: contexts,
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
  return { result, dir };
}
