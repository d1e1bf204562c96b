import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RunResult } from '../../src/results/schema.js';
import type { Flavor, Profile } from '../../src/sim/profile-schema.js';
import { startSim } from '../../src/sim/server.js';
import { probeTarget } from '../../src/target/probe.js';
import type { TargetInfo } from '../../src/target/types.js';
import { runVirtual, virtualSettings } from '../bench/virtual-run.js';
import { profile } from './capacity-rig.js';

// A sim flavor with known seats, KV and speeds (./capacity-rig.ts), found as a user's probe finds it (the real probe
// against the same profile on 127.0.0.1, with or without its launch command), then measured by the real runner in
// virtual time: what the answer sees of each engine's limits is what it would see of the engine.
export interface EngineCase {
  flavor: Flavor;
  seats: number; // maxNumSeqs: vLLM --max-num-seqs, llama.cpp -np, OLLAMA_NUM_PARALLEL, TGI --max-batch-size
  kvTokens: number; // llama.cpp -c; TGI --max-batch-total-tokens
  overrides?: Partial<Profile>;
  contexts: number[];
  concurrency: number[];
  maxOutput?: number;
  launch: boolean; // the probe reads the launch command (a local server, or --launch-command)
}

export async function probed(c: EngineCase): Promise<TargetInfo> {
  const sim = await startSim({
    profile: profile(c.flavor, c.seats, c.kvTokens),
    overrides: { metrics: true, ...c.overrides },
  });
  try {
    return await probeTarget({
      baseUrl: sim.baseUrl,
      hardware: { source: 'none' },
      detectLocalHardware: false,
      ...(c.launch ? { launchCommand: sim.launchCommand } : {}),
    });
  } finally {
    await sim.close();
  }
}

export async function measureEngine(c: EngineCase): Promise<RunResult> {
  const info = await probed(c);
  // The virtual run counts prompts with the sim's own tokenizer; the rest is what the probe found (no KV capacity
  // where it found none).
  const {
    tokenize: _tokenize,
    tokenizeAvailable: _available,
    tokenizeCoversTemplate: _covers,
    tokenizeMethod: _method,
    ...found
  } = info;
  const { result, error } = await runVirtual(
    virtualSettings(mkdtempSync(join(tmpdir(), 'lib-engine-')), {
      contexts: c.contexts,
      prefillContexts: c.contexts,
      prefillRepeats: 1,
      concurrency: c.concurrency,
      maxOutput: c.maxOutput ?? 32,
      duration: 4,
    }),
    {
      sim: {
        profile: profile(c.flavor, c.seats, c.kvTokens),
        seed: 3,
        overrides: { metrics: false, ...c.overrides },
      },
      info: {
        kvCapacityTokens: undefined,
        kvCapacitySource: undefined,
        kvCapacityBound: undefined,
        ...found,
        metricsAvailable: false,
      },
    },
  );
  expect(error).toBeUndefined();
  return result;
}
