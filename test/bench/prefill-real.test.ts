import { afterEach, describe, expect, it } from 'vitest';
import { realClock } from '../../src/clock.js';
import type { PromptSource } from '../../src/bench/drive/context.js';
import { measurePrefill, prefillWarnings } from '../../src/bench/prefill.js';
import { promptTokensFromError, shortenedTarget } from '../../src/bench/prefill-shorten.js';
import { createPromptSource } from '../../src/bench/prompt-source.js';
import { Sender } from '../../src/bench/drive/sender.js';
import { streamRequest } from '../../src/client/stream.js';
import { parseErrorBody } from '../../src/failures/error-body.js';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { probeTarget } from '../../src/target/probe.js';
import type { TargetInfo } from '../../src/target/types.js';

// The full-window prompt on the sim's llama.cpp flavor: the full-window prompt refused as too long is shortened
// and measured again; cached template tokens on a cold prompt come off the prefill rate.
const noHw = { gpuName: undefined };

// measurePrefill returns a refusal as data; these tests expect a measured point.
async function pointOf(...args: Parameters<typeof measurePrefill>) {
  const r = await measurePrefill(...args);
  if ('fatal' in r) throw r.fatal;
  return r;
}

describe('shortening a refused full-window prompt (pure)', () => {
  it("reads the refused prompt's length from each engine's wording", () => {
    const says = [
      ['request (16400 tokens) exceeds the available context size (16384 tokens), try increasing it', 16_400],
      [
        "This model's maximum context length is 16384 tokens. However, your request has 16400 input tokens.",
        16_400,
      ],
      ["The input (16400 tokens) is longer than the model's context length (16384 tokens).", 16_400],
      [
        'The sum of prompt length (16400) and query length (0) max_tokens (1) should not exceed max_seq_len',
        16_400,
      ],
      ['the request exceeds the available context size, try increasing it', undefined],
      [
        parseErrorBody(
          '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it",' +
            '"type":"exceed_context_size_error","n_prompt_tokens":16400,"n_ctx":16384}}',
        ).message,
        16_400,
      ],
    ] as const;
    for (const [message, n] of says) expect(promptTokensFromError(message)).toBe(n);
  });

  it('takes the miss off twice plus a margin when it is known, 3% when not', () => {
    expect(shortenedTarget(16_128, 'request (16400 tokens) exceeds')).toEqual({
      to: 16_128 - 272 - 64,
      served: 16_400,
    });
    expect(shortenedTarget(16_128, 'too long')).toEqual({ to: Math.floor(16_128 * 0.97) });
    // The prompt hit its target and was still refused: the limit is below the point, no shorter prompt helps.
    expect(shortenedTarget(32_512, 'your request has 32511 input tokens')).toBeUndefined();
  });
});

describe('prefill against the sim (llama.cpp flavor)', () => {
  let sim: SimHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  async function setup(stretch = 1): Promise<{ sender: Sender; info: TargetInfo }> {
    sim = await startSim({
      profile: 'tiny',
      flavor: 'llamacpp',
      overrides: { maxModelLen: 16_384, maxNumSeqs: 1, kvCapacityTokens: 16_384, reasoningTokens: 0 },
    });
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw, detectLocalHardware: false });
    const real = await createPromptSource({ runId: 'pf', seed: 5, baseUrl: sim.baseUrl, info, api: 'chat' });
    // A sizing that overshoots by `stretch`, as calibration did against a real llama-server.
    const prompts: PromptSource = {
      prompt: (target, slot) => real.prompt(Math.round(target * stretch), slot),
    };
    const cfg = { baseUrl: sim.baseUrl, api: 'chat' as const, ignoreEos: true, sampling: {}, idPrefix: 'pf' };
    return { sender: new Sender(cfg, info, prompts, streamRequest, realClock), info };
  }

  it('the full-window point refused as too long is shortened, sent again and recorded', async () => {
    const { sender } = await setup(1.02);
    const stop = new AbortController();
    const { point, sent } = await pointOf(sender, 16_128, false, 1, stop.signal);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.record.error?.reason ?? sent[0]!.record.error?.kind).toBeDefined();
    expect(point.status).toBe('Valid');
    const first = Math.round(16_128 * 1.02);
    expect(point.shortened).toMatchObject({ fromTarget: 16_128 });
    expect(Math.abs(point.shortened!.rejectedPromptTokens! - first) / first).toBeLessThan(0.01);
    expect(point.promptTokens!).toBeLessThanOrEqual(16_384);
    expect(point.errors).toBeUndefined(); // the refused attempt is recorded as the retry, not as a failure
    expect(prefillWarnings(point, '16K')[0]).toMatch(
      /refused the 16,?\d{3}-token prompt as too long; measured again with a prompt for [\d,]+ tokens/,
    );
  });

  it('a decode context refused as too long is not retried: it fails the context as before', async () => {
    const { sender } = await setup(1.02);
    const stop = new AbortController();
    const r = await measurePrefill(sender, 16_128, true, 1, stop.signal);
    expect(r.sent).toHaveLength(1);
    expect('fatal' in r && r.fatal.code).toBe('CONTEXT_TOO_LONG');
  });

  it('cached template tokens on a cold prompt: the rate counts the computed tokens, no warning for 12 of 1K', async () => {
    const { sender } = await setup();
    const stop = new AbortController();
    await measurePrefill(sender, 2048, true, 1, stop.signal); // the template's start is now in the slot's cache
    const { point } = await pointOf(sender, 1024, true, 1, stop.signal);
    const rep = point.repeats[0]!;
    expect(rep.cachedTokens).toBe(12); // BOS + preamble (10) and the user marker (2): sim/tokenizer.ts
    expect(point.cachedTokens).toBe(12);
    const computedRate = (rep.promptTokens - 12) / (rep.ttftMs / 1000);
    expect(Math.abs(rep.tokensPerS - computedRate) / computedRate).toBeLessThan(1e-3); // ttftMs is rounded to 1 µs
    expect(rep.tokensPerS).toBeLessThan((rep.promptTokens / (rep.ttftMs / 1000)) * 0.995); // not the whole prompt
    expect(prefillWarnings(point, '1K')).toEqual([]);
  });

  it('a prompt the cache mostly covers is a warning that names the share', async () => {
    const { sender } = await setup();
    const stop = new AbortController();
    await measurePrefill(sender, 1024, true, 1, stop.signal);
    const { point } = await pointOf(sender, 1024, true, 1, stop.signal); // the same prompt again
    expect(point.repeats[0]!.cachedTokens!).toBeGreaterThan(1000);
    expect(prefillWarnings(point, '1K').join('\n')).toMatch(
      /reported (9\d|100)% of a cold prompt's tokens as cached/,
    );
  });
});
