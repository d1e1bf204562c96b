import { afterEach, describe, expect, it } from 'vitest';
import { createPromptSource } from '../../src/bench/prompt-source.js';
import { probePromptTokens } from '../../src/prompts/probe.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { probeTarget } from '../../src/target/probe.js';
import { formatProbe } from '../../src/target/probe-format.js';

// A chat prompt's length counts the whole rendered prompt (the sim's chat flavors add 15
// template tokens to a one-message conversation, as real templates do), whatever way the engine can count it.
const noHw = { gpuName: undefined };
const TARGETS = [1024, 4096, 8192, 16_128];

describe('prompt lengths under chat templates, measured by the server', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  async function lengths(flavor: 'llamacpp' | 'vllm' | 'sglang' | 'trtllm') {
    sim = await startSim({ profile: 'tiny', flavor, overrides: { maxModelLen: 16_384, reasoningTokens: 0 } });
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw, detectLocalHardware: false });
    const warnings: string[] = [];
    const prompts = await createPromptSource({
      runId: 'plen',
      seed: 3,
      baseUrl: sim.baseUrl,
      info,
      api: 'chat',
      onWarning: (w) => warnings.push(w),
    });
    const out: Array<{ target: number; served: number | undefined }> = [];
    for (const target of TARGETS) {
      const { text } = await prompts.prompt(target, 1);
      const served = await probePromptTokens({ baseUrl: sim.baseUrl, model: info.model, api: 'chat' }, text);
      out.push({ target, served });
    }
    return { info, out, warnings };
  }

  it.each(['llamacpp', 'vllm', 'sglang'] as const)(
    '%s: the rendered prompt is counted by the server and every prompt is within 1 percent of its target',
    async (flavor) => {
      const { info, out, warnings } = await lengths(flavor);
      expect(info.tokenizeCoversTemplate).toBe(true);
      expect(formatProbe(info, sim!.baseUrl)).toMatch(
        /Tokenize endpoint\s+yes: POST .*chat template included/,
      );
      for (const { target, served } of out) {
        expect(served).toBeDefined();
        expect(Math.abs(served! - target) / target).toBeLessThanOrEqual(0.01);
      }
      // The full-window prompt stays under the 16,384-token window: no rejection, no retry needed.
      expect(out.at(-1)!.served!).toBeLessThanOrEqual(16_384);
      expect(warnings).toEqual([]);
    },
  );

  it('trtllm: a content-only tokenizer gets the template tokens from one probe request', async () => {
    const { info, out, warnings } = await lengths('trtllm');
    expect(info.tokenizeCoversTemplate).toBe(false);
    for (const { target, served } of out)
      expect(Math.abs(served! - target) / target).toBeLessThanOrEqual(0.01);
    expect(warnings).toEqual([]);
  });

  it('a tokenizer that stops answering is said, not silent, and calibration takes over', async () => {
    sim = await startSim({ profile: 'tiny', flavor: 'vllm', overrides: { reasoningTokens: 0 } });
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw, detectLocalHardware: false });
    let calls = 0;
    const warnings: string[] = [];
    const prompts = await createPromptSource({
      runId: 'plen',
      seed: 3,
      baseUrl: sim.baseUrl,
      info: {
        ...info,
        tokenize: (t, api) => (++calls > 3 ? Promise.resolve(undefined) : info.tokenize!(t, api)),
      },
      api: 'chat',
      onWarning: (w) => warnings.push(w),
    });
    await prompts.prompt(1024, 1);
    const { text } = await prompts.prompt(4096, 1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/tokenize endpoint did not answer for the 4,096-token prompt.*calibration/);
    const served = await probePromptTokens({ baseUrl: sim.baseUrl, model: info.model, api: 'chat' }, text);
    expect(Math.abs(served! - 4096) / 4096).toBeLessThanOrEqual(0.02);
  });
});
