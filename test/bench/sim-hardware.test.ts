import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import { isSimEngine, simProfileHardware, withoutLocalHardwareForSim } from '../../src/bench/sim-hardware.js';
import { startSim } from '../../src/sim/index.js';
import { loadProfile } from '../../src/sim/profiles.js';
import { probeTarget } from '../../src/target/probe.js';
import type { TargetInfo } from '../../src/target/types.js';
import { fakeServer } from './fake-server.js';

const info = (version: string): TargetInfo => ({
  engine: { name: 'vllm', version, backend: 'cuda' },
  models: ['m'],
  model: 'm',
  metricsAvailable: true,
  extensions: {
    ignoreEos: true,
    minTokens: true,
    streamOptions: true,
    continuousUsage: true,
    maxCompletionTokens: true,
  },
  hardware: {
    type: 'Discrete GPU',
    gpuName: 'H200',
    gpuCount: 1,
    gpuMemoryGb: 141,
    gpuDriver: '580',
    source: 'nvidia-smi',
  },
});

describe('sim hardware', () => {
  it("describes a sim profile's GPUs, labelled simulated", () => {
    const hw = simProfileHardware({
      name: 'rtx',
      hardware: { gpuName: 'RTX PRO 6000', gpuCount: 8, gpuMemoryGb: 96 },
    });
    expect(hw).toEqual({
      type: 'Simulated (sim profile "rtx", no real GPU)',
      gpuName: 'RTX PRO 6000',
      gpuCount: 8,
      gpuMemoryGb: 96,
      gpuMemoryGbTotal: 768,
      source: 'sim',
    });
  });

  it("drops this machine's GPUs (and the backend taken from them) for a target that says it is the sim", () => {
    expect(isSimEngine({ name: 'vllm', version: '0.30.0-sim' })).toBe(true);
    expect(isSimEngine({ name: 'vllm', version: '0.30.0' })).toBe(false);
    const real = info('0.30.0');
    expect(withoutLocalHardwareForSim(real, undefined, undefined)).toBe(real);
    const sim = withoutLocalHardwareForSim(info('0.30.0-sim'), { gpuCount: 2 }, undefined);
    expect(sim.hardware).toEqual({ type: 'Simulated (no real GPU)', gpuCount: 2, source: 'sim' });
    expect(sim.engine.backend).toBeUndefined();
    expect(withoutLocalHardwareForSim(info('1-sim'), undefined, 'cuda').engine.backend).toBe('cuda');
  });

  it('a run against the sim stores sim hardware, never local GPU facts', { timeout: 20_000 }, async () => {
    const sim = await startSim({ profile: 'tiny' });
    try {
      const srv = fakeServer({ stepMs: 2, slots: 4, ttftMs: 2 });
      const out = await new BenchRun(
        {
          baseUrl: sim.baseUrl,
          contexts: [256],
          prefillContexts: [256],
          concurrency: [1],
          maxOutput: 20,
          duration: 0.1,
          rampTimeout: 1,
          settleTimeout: 1,
          settlePause: 0.01,
          out: mkdtempSync(join(tmpdir(), 'lib-run-sim-')),
          reports: false,
          gpuName: 'Pretend GPU',
        },
        {
          stream: srv.stream,
          createPrompts: async () => ({
            prompt: async (c: number, slot: number) => ({ text: `p${c}-${slot}`, estTokens: c }),
          }),
          createSampler: () => undefined,
        },
      ).start();
      // The tiny profile's one 24 GB GPU, under the name the user gave; nothing of this machine's.
      expect(out.result.hardware).toEqual({
        type: 'Simulated (sim profile "tiny", no real GPU)',
        gpuName: 'Pretend GPU',
        gpuCount: 1,
        gpuMemoryGb: 24,
        gpuMemoryGbTotal: 24,
        source: 'sim',
      });
    } finally {
      await sim.close();
    }
  });

  it('a probe of the sim reads the hardware its profile describes, as demo records it', async () => {
    const sim = await startSim({ profile: 'demo' });
    try {
      const served = await (await fetch(`${sim.url}/sim/hardware`)).json();
      expect(served).toEqual({
        profile: 'demo',
        hardware: { gpuName: 'Simulated GPU', gpuCount: 1, gpuMemoryGb: 24 },
      });
      const probed = await probeTarget({ baseUrl: sim.baseUrl, detectLocalHardware: false });
      expect(probed.simProfile).toEqual({ name: 'demo', hardware: served.hardware });
      expect(withoutLocalHardwareForSim(probed, undefined, undefined).hardware).toEqual(
        simProfileHardware(loadProfile('demo')),
      );
    } finally {
      await sim.close();
    }
  });
});
