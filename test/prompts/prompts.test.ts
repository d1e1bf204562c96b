import { afterEach, describe, expect, it } from 'vitest';
import {
  buildPromptText,
  createPromptFactory,
  promptHead,
  CLOSING_INSTRUCTION,
} from '../../src/prompts/index.js';
import { startLocalServer, type LocalServer } from '../client/local-server.js';

// A stand-in tokenizer: one token per word or punctuation mark, plus a fixed chat-template overhead.
const TEMPLATE_TOKENS = 9;
function fakeTokens(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const word = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
    if (word) {
      if (!inWord) n++;
      inWord = true;
    } else {
      inWord = false;
      if (c !== 32 && c !== 10) n++;
    }
  }
  return n + TEMPLATE_TOKENS;
}

const spec = (slot: number, contextTokens = 8192, seed = 1) => ({
  runId: 'run-a',
  contextTokens,
  slot,
  seed,
});

describe('buildPromptText', () => {
  it('is deterministic by seed and differs between seeds, runs and slots', () => {
    expect(buildPromptText(spec(3), 4)).toBe(buildPromptText(spec(3), 4));
    expect(buildPromptText(spec(3, 8192, 2), 4)).not.toBe(buildPromptText(spec(3), 4));
    expect(buildPromptText({ ...spec(3), runId: 'run-b' }, 4)).not.toBe(buildPromptText(spec(3), 4));
  });

  it('starts every slot of a context with a different first word, and keeps the marker first', () => {
    const firsts = new Set<string>();
    for (let slot = 0; slot < 128; slot++) {
      const t = buildPromptText(spec(slot), 4, 2000);
      firsts.add(t.split(' ')[0]!);
      expect(t.startsWith(promptHead(spec(slot)))).toBe(true);
      expect(t).toContain(`[run run-a, context 8192, slot ${slot}]`);
      expect(t.endsWith(CLOSING_INSTRUCTION)).toBe(true);
    }
    expect(firsts.size).toBe(128);
    // Slot 0 of two contexts differs within the first two words.
    const a = buildPromptText(spec(0, 8192), 4, 500).split(' ').slice(0, 2).join(' ');
    const b = buildPromptText(spec(0, 16384), 4, 500).split(' ').slice(0, 2).join(' ');
    expect(a).not.toBe(b);
  });

  it('reads as text: sentences of words, no artefacts', () => {
    const t = buildPromptText(spec(1), 4, 20_000);
    expect(t).not.toMatch(/undefined|NaN|\[object/);
    const sentences = t.split(/[.?!]\s/).length;
    expect(sentences).toBeGreaterThan(100);
    expect(Math.abs(t.length - 20_000)).toBeLessThan(200);
  });

  it('extends a shorter prompt when asked for more characters (token count grows monotonically)', () => {
    const short = buildPromptText(spec(2), 4, 10_000).slice(0, -CLOSING_INSTRUCTION.length);
    const long = buildPromptText(spec(2), 4, 30_000);
    expect(long.startsWith(short)).toBe(true);
  });

  it('builds a 1M-token prompt quickly (printed, not asserted)', () => {
    buildPromptText(spec(0, 1_048_576, 9), 4.4); // pool for this seed
    const t0 = performance.now();
    const text = buildPromptText(spec(1, 1_048_576, 9), 4.4);
    const flat = Buffer.byteLength(text); // forces the string flat, as sending it would
    const ms = performance.now() - t0;
    console.log(`1M-token prompt: ${(flat / 1e6).toFixed(1)} MB built in ${ms.toFixed(0)} ms`);
    expect(text.length).toBeGreaterThan(4_000_000);
  });
});

describe('createPromptFactory with a tokenizer', () => {
  it('hits the target within 1% (0.2% tolerance) from 1K to 1M tokens with few tokenize calls', async () => {
    let calls = 0;
    const f = await createPromptFactory({
      runId: 'run-t',
      seed: 7,
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      api: 'chat',
      tokenize: async (text) => {
        calls++;
        return fakeTokens(text);
      },
    });
    for (const target of [1024, 8192, 131_072, 1_048_576]) {
      for (const slot of [0, 1, 2]) {
        const before = calls;
        const p = await f.prompt(target, slot);
        const real = fakeTokens(p.text);
        expect(p.estTokens).toBe(real);
        expect(Math.abs(real - target) / target).toBeLessThanOrEqual(0.01);
        if (slot > 0) expect(calls - before).toBeLessThanOrEqual(3); // cached chars-per-token
      }
    }
    expect(f.source()).toBe('tokenize');
  });

  it('falls back to calibration when the tokenizer stops answering, and says so', async () => {
    const warnings: string[] = [];
    const f = await createPromptFactory({
      runId: 'r',
      seed: 1,
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      api: 'chat',
      tokenize: async () => undefined,
      probeTimeoutMs: 500,
      onWarning: (w) => warnings.push(w),
    });
    const p = await f.prompt(2048, 0);
    expect(f.source()).toBe('estimate'); // port 9 refuses the probes too
    expect(p.text.length).toBeGreaterThan(2048 * 3);
    // Neither change of method is silent, and each is said once.
    await f.prompt(2048, 1);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/tokenize endpoint did not answer for the 2,048-token prompt/);
    expect(warnings[1]).toMatch(/calibration probes .* got no usage.prompt_tokens/);
  });

  it('gives up on a tokenizer whose count does not follow the text, without growing the prompt past bounds', async () => {
    // A proxy's or a broken endpoint's constant: before the bound, each step grew the text about 1,600x (8,187
    // tokens short at 5 counted) until Node refused to allocate the string.
    const warnings: string[] = [];
    const lengths: number[] = [];
    const f = await createPromptFactory({
      runId: 'r',
      seed: 1,
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'm',
      api: 'completions',
      tokenize: async (text) => {
        lengths.push(text.length);
        return 5;
      },
      probeTimeoutMs: 500,
      onWarning: (w) => warnings.push(w),
    });
    await f.prompt(8192, 0);
    // The first text, then at most 4x it; the count stays 5, so the search stops there.
    expect(lengths).toHaveLength(2);
    expect(lengths[1]! / lengths[0]!).toBeCloseTo(4, 2);
    expect(warnings[0]).toMatch(
      /^prompt sizing: the server's tokenize endpoint counts 5 tokens whatever the text \(\d+ and \d+ characters alike\) for the 8,192-token prompt/,
    );
  });
});

describe('createPromptFactory with calibration probes', () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('learns tokens per character from max_tokens:1 probes and lands within 1%', async () => {
    const probes: number[] = [];
    server = await startLocalServer((_req, res, body) => {
      const b = JSON.parse(body) as {
        messages: Array<{ content: string }>;
        max_tokens: number;
        stream: boolean;
      };
      probes.push(b.max_tokens);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [{ message: { content: 'x' } }],
          usage: { prompt_tokens: fakeTokens(b.messages[0]!.content), completion_tokens: 1 },
        }),
      );
    });
    const f = await createPromptFactory({
      runId: 'cal',
      seed: 3,
      baseUrl: server.baseUrl,
      model: 'm',
      api: 'chat',
      apiKey: 'sk-x',
    });
    for (const target of [2048, 32_768, 262_144, 1_048_576]) {
      const p = await f.prompt(target, 4);
      const real = fakeTokens(p.text);
      expect(Math.abs(real - target) / target, `target ${target}`).toBeLessThanOrEqual(0.01);
      expect(Math.abs(p.estTokens - real) / real).toBeLessThanOrEqual(0.01);
    }
    expect(f.source()).toBe('calibration');
    expect(probes).toEqual([1, 1]); // two probes, once per factory
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-x');
  });

  it('uses the estimate when probes fail', async () => {
    server = await startLocalServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"boom"}}');
    });
    const f = await createPromptFactory({
      runId: 'e',
      seed: 3,
      baseUrl: server.baseUrl,
      model: 'm',
      api: 'completions',
    });
    const p = await f.prompt(4096, 0);
    expect(f.source()).toBe('estimate');
    expect(p.estTokens).toBeGreaterThan(3900);
    expect(server.requests[0]!.url).toBe('/v1/completions');
  });
});
