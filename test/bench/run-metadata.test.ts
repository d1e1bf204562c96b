import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import type { RunInput } from '../../src/bench/settings.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { fakeServer } from './fake-server.js';

// The real probe against a sim that claims to be vLLM 0.11.0 (not "-sim"); generation goes through the fake
// transport so the test stays short. What lands in result.engine / hardware / launchCommand is what counts.
let sim: SimHandle;
beforeAll(async () => {
  sim = await startSim({ profile: 'tiny', overrides: { engine: { version: '0.11.0' } } });
});
afterAll(async () => {
  await sim?.close();
});

const settings = (baseUrl: string, extra: Partial<RunInput>): RunInput => ({
  baseUrl,
  contexts: [256],
  prefillContexts: [256],
  concurrency: [1],
  maxOutput: 20,
  duration: 0.1,
  rampTimeout: 1,
  settleTimeout: 1,
  settlePause: 0.01,
  out: mkdtempSync(join(tmpdir(), 'lib-run-meta-')),
  reports: false,
  ...extra,
});

const runOnce = async (s: RunInput) => {
  const srv = fakeServer({ stepMs: 2, slots: 4, ttftMs: 2 });
  const out = await new BenchRun(s, {
    stream: srv.stream,
    createPrompts: async () => ({
      prompt: async (c: number, slot: number) => ({ text: `p${c}-${slot}`, estTokens: c }),
    }),
    createSampler: () => undefined,
  }).start();
  return out.result;
};

describe('run: engine and hardware metadata (discovery, then flags)', () => {
  it(
    'keeps discovered facts, lets given flags win, fills the rest from the launch command',
    { timeout: 20_000 },
    async () => {
      const r = await runOnce(
        settings(sim.baseUrl, {
          engineCommit: 'abc1234',
          build: 'cuda-13.2',
          gpuName: 'H200 SXM',
          gpuCount: 4,
          gpuMemoryGb: 141,
          launchCommand: 'vllm serve m --api-key sk-very-secret-1 --quantization fp8',
        }),
      );
      expect(r.engine.name).toBe('vllm');
      expect(r.engine.version).toBe('0.11.0'); // discovered: no flag
      expect(r.engine.commit).toBe('abc1234');
      expect(r.engine.build).toBe('cuda-13.2');
      expect(r.engine.quantization).toBe('fp8'); // from the launch command
      expect(r.engine.repository).toBe('github.com/vllm-project/vllm');
      expect(r.hardware).toMatchObject({
        gpuName: 'H200 SXM',
        gpuCount: 4,
        gpuMemoryGb: 141,
        gpuMemoryGbTotal: 564,
      });
      expect(r.launchCommand).toContain('--quantization fp8');
      expect(r.launchCommand).not.toContain('sk-very-secret-1');
      expect(JSON.stringify(r)).not.toContain('sk-very-secret-1');

      const r2 = await runOnce(
        settings(sim.baseUrl, {
          engineVersion: '0.11.1-patched',
          backend: 'rocm',
          repository: 'github.com/me/vllm',
          quantization: 'NVFP4',
          launchCommand: 'vllm serve m --quantization fp8',
        }),
      );
      expect(r2.engine).toMatchObject({
        version: '0.11.1-patched', // an explicit flag wins over discovery
        backend: 'rocm',
        repository: 'github.com/me/vllm',
        quantization: 'NVFP4',
      });
    },
  );
});
