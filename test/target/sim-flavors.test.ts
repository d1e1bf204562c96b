import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { isBenchError } from '../../src/errors.js';
import { startSim } from '../../src/sim/index.js';
import type { Flavor, SimHandle } from '../../src/sim/index.js';
import { errorCodeFor, parseErrorBody } from '../../src/failures/index.js';
import { createMetricsSampler } from '../../src/target/metrics-sampler.js';
import { probeTarget } from '../../src/target/probe.js';
import { buildRequestBody } from '../../src/target/request-body.js';
import { summarizeSamples } from '../../src/target/sample-stats.js';
import type { TargetInfo } from '../../src/target/types.js';

let sim: SimHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const noHw = { source: 'none' as const };

// What discovery must find on each flavor of the tiny profile (maxModelLen 32768, KV 300000 tokens).
const EXPECT: Record<Flavor, { maxModelLen?: number; kv?: number; metrics: boolean; reasoning?: string }> = {
  vllm: { maxModelLen: 32768, kv: 300000, metrics: true, reasoning: 'reasoning' },
  sglang: { maxModelLen: 32768, kv: 300000, metrics: true, reasoning: 'reasoning_content' },
  // The sim's llama.cpp reports per-slot n_ctx = maxModelLen (32768) below n_ctx_train (65536) with 16
  // slots: split KV by llama.cpp's rules, 16 × 32768 (the sim's own pool is 300000; see docs/engines.md).
  llamacpp: { maxModelLen: 18944, kv: 16 * 18944, metrics: true, reasoning: 'reasoning_content' }, // -c 300000 -np 16
  tgi: { maxModelLen: 32768, kv: 300000, metrics: true, reasoning: undefined },
  ollama: { maxModelLen: 32768, kv: undefined, metrics: false, reasoning: 'reasoning' },
  trtllm: { maxModelLen: undefined, kv: 300000, metrics: true, reasoning: 'reasoning_content' },
};

async function stream(
  info: TargetInfo,
  url: string,
  prompt: string,
  maxTokens: number,
): Promise<{ status: number; text: string }> {
  const body = buildRequestBody(info, {
    api: 'chat',
    prompt,
    maxOutput: maxTokens,
    ignoreEos: true,
    sampling: { temperature: 0 },
  });
  const res = await request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, text: await res.body.text() };
}

function errorOf(r: { status: number; text: string }): ReturnType<typeof parseErrorBody> | undefined {
  if (r.status !== 200) return parseErrorBody(r.text);
  const line = r.text
    .split('\n')
    .find((l) => l.startsWith('data: {"error"') || l.startsWith('data: {"object":"error"'));
  return line ? parseErrorBody(line.slice(6)) : undefined;
}

describe.each(Object.keys(EXPECT) as Flavor[])('sim flavor %s', (flavor) => {
  const exp = EXPECT[flavor];

  it('probe discovers engine, version, limits, metrics and reasoning field without flags', async () => {
    sim = await startSim({ profile: 'tiny', flavor });
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw });
    expect(info.engine.name).toBe(flavor);
    expect(info.engine.version).toBe(sim.profile.engine.version);
    expect(info.model).toBe(sim.profile.servedModelName);
    expect(info.maxModelLen).toBe(exp.maxModelLen);
    expect(info.kvCapacityTokens).toBe(exp.kv);
    expect(info.metricsAvailable).toBe(exp.metrics);
    expect(info.reasoningField).toBe(exp.reasoning);
  });

  it('accepts the request body built for it and samples its metrics while decoding', async () => {
    sim = await startSim({ profile: 'tiny', flavor, overrides: { maxNumSeqs: 2 } });
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw });
    const sampler = createMetricsSampler(info, { baseUrl: sim.baseUrl, intervalMs: 25, power: null });
    sampler.start(performance.timeOrigin + performance.now());
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) => stream(info, sim!.url, `request ${i} says hello`, 150)),
    );
    const samples = await sampler.stop();
    for (const r of results) {
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      expect(errorOf(r)).toBeUndefined();
      expect(r.text).toMatch(/"usage"/);
    }
    if (exp.metrics) {
      const sum = summarizeSamples(samples);
      expect(samples.length).toBeGreaterThan(3);
      expect(sum.maxRunning).toBeGreaterThanOrEqual(1);
      expect(sum.maxRunning).toBeLessThanOrEqual(2);
      expect(sum.maxWaiting).toBeGreaterThanOrEqual(1); // 4 requests, 2 slots
    } else {
      expect(samples).toEqual([]);
    }
  });

  it('a prompt longer than the context maps to CONTEXT_TOO_LONG (Ollama truncates instead)', async () => {
    sim = await startSim({ profile: 'tiny', flavor });
    const info = await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw });
    const r = await stream(info, sim.url, 'lorem ipsum dolor sit amet '.repeat(40000), 16);
    const err = errorOf(r);
    if (flavor === 'ollama') {
      expect(r.status).toBe(200);
      expect(err).toBeUndefined();
      return;
    }
    expect(err, r.text.slice(0, 300)).toBeDefined();
    expect(errorCodeFor(r.status, err!)).toBe('CONTEXT_TOO_LONG');
  });
});

describe('sim auth per flavor', () => {
  it.each([
    ['vllm', 'AUTH_FAILED'],
    ['sglang', 'AUTH_FAILED'],
    ['llamacpp', 'ok'], // /v1/models is public on llama.cpp
    ['tgi', 'ok'], // only generation and /tokenize are guarded
  ] as const)('%s without the key: %s', async (flavor, outcome) => {
    sim = await startSim({ profile: 'tiny', flavor, apiKey: 'sk-sim-secret-4242' });
    let code = 'ok';
    try {
      await probeTarget({ baseUrl: sim.baseUrl, hardware: noHw });
    } catch (e) {
      code = isBenchError(e) ? e.code : String(e);
    }
    expect(code).toBe(outcome);
    const withKey = await probeTarget({ baseUrl: sim.baseUrl, apiKey: 'sk-sim-secret-4242', hardware: noHw });
    expect(withKey.engine.name).toBe(flavor);
    expect(withKey.maxModelLen).toBe(flavor === 'llamacpp' ? 18944 : 32768); // llama.cpp: the slot's context
  });
});
