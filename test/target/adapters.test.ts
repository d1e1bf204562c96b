import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { adapterByName } from '../../src/target/engines/index.js';
import { errorCodeFor, parseErrorBody } from '../../src/failures/index.js';
import { probeTarget } from '../../src/target/probe.js';
import { readPromSample } from '../../src/target/read-sample.js';
import type { EngineName, TargetInfo } from '../../src/target/types.js';
import type { FixtureServer } from './fixture-server.js';
import { GENERATING, fixtureText, serveFixture } from './fixture-server.js';

let srv: FixtureServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const noHw = { source: 'none' as const };
const KEY = 'sk-adapter-test-0042';

// What each recorded transcript must yield (docs/engines.md facts).
const EXPECT: Record<
  Exclude<EngineName, 'vllm'>,
  Partial<TargetInfo> & {
    detectedBy: string;
    version?: string;
    commit?: string;
    sample?: Record<string, number>;
  }
> = {
  sglang: {
    detectedBy: 'GET /v1/models owned_by',
    version: '0.5.6.post2',
    model: 'Qwen/Qwen3-32B',
    maxModelLen: 40960,
    kvCapacityTokens: 714352,
    kvCapacitySource: 'GET /get_server_info max_total_num_tokens',
    metricsAvailable: true,
    reasoningField: 'reasoning_content',
    tokenizeAvailable: true,
    sample: {
      running: 7,
      waiting: 2,
      kvUsage: 0.42,
      prefixCacheHits: 300000,
      prefixCacheQueries: 500000,
      specAcceptLength: 2.8,
    },
  },
  llamacpp: {
    detectedBy: 'GET /v1/models owned_by',
    version: 'b10470',
    commit: '7d3e8f1a',
    model: 'qwen3-8b',
    maxModelLen: 4096,
    kvCapacityTokens: 16384,
    kvCapacitySource: 'GET /props n_ctx × total_slots (4 slots)',
    metricsAvailable: true,
    reasoningField: 'reasoning_content',
    tokenizeAvailable: true,
    sample: { running: 4, waiting: 3, specDrafts: 400, specDraftTokens: 1600, specAcceptedTokens: 1000 },
  },
  tgi: {
    detectedBy: 'GET /info',
    version: '3.3.6',
    commit: 'db931fcf6f4c8c4f1a8e4b1b2a0f3c9d8e7f6a5b',
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    maxModelLen: 8192,
    kvCapacityTokens: 162048,
    kvCapacitySource: 'tgi_batch_max_total_tokens',
    metricsAvailable: true,
    tokenizeAvailable: true,
    sample: { running: 6, waiting: 5, kvUsage: 40512 / 162048 },
  },
  ollama: {
    detectedBy: 'GET /api/version',
    version: '0.33.1',
    model: 'llama3.2:3b', // the loaded one (GET /api/ps), not the first listed
    maxModelLen: 32768,
    metricsAvailable: false,
    reasoningField: 'reasoning',
    tokenizeAvailable: false,
  },
  trtllm: {
    detectedBy: 'GET /v1/models owned_by',
    version: '1.2.0rc4',
    model: 'meta-llama/Llama-3.3-70B-Instruct',
    kvCapacityTokens: 9216 * 32,
    kvCapacitySource: 'GET /metrics kvCacheStats maxNumBlocks × tokensPerBlock',
    metricsAvailable: true,
    reasoningField: 'reasoning_content',
    tokenizeAvailable: true,
    sample: { running: 12, waiting: 3, kvUsage: 0.5, prefixCacheHits: 8000, prefixCacheQueries: 10000 },
  },
  generic: {
    detectedBy: 'fallback (no engine-specific endpoint answered)',
    model: 'gpt-oss-120b',
    maxModelLen: 131072,
    metricsAvailable: false,
    tokenizeAvailable: false,
  },
};

describe.each(Object.entries(EXPECT))('adapter %s against its recorded transcript', (engine, exp) => {
  it('detects, discovers, and never sends a generation while probing', async () => {
    srv = await serveFixture(engine, { apiKey: KEY });
    const info = await probeTarget({ baseUrl: `${srv.url}/v1`, apiKey: KEY, hardware: noHw });
    expect(info.engine.name).toBe(engine);
    expect(info.engine.detectedBy).toBe(exp.detectedBy);
    if (exp.version) expect(info.engine.version).toBe(exp.version);
    if (exp.commit) expect(info.engine.commit).toBe(exp.commit);
    for (const k of [
      'model',
      'maxModelLen',
      'kvCapacityTokens',
      'kvCapacitySource',
      'metricsAvailable',
      'reasoningField',
      'tokenizeAvailable',
    ] as const) {
      expect(info[k], k).toEqual(exp[k]);
    }
    expect(info.extensions).toEqual(adapterByName(engine).extensions);
    expect(info.cachedTokensSource).toBe(adapterByName(engine).cachedTokensSource);
    if (exp.sample) expect(new Set(info.metricsPresent)).toEqual(new Set(Object.keys(exp.sample)));
    else expect(info.metricsPresent).toBeUndefined();
    expect(srv.requests.filter((r) => GENERATING.includes(r.path))).toEqual([]);
    // SGLang's and TRT-LLM's /health submit a generation (docs/engines.md); nobody needs /health to probe.
    expect(srv.requests.filter((r) => r.path.startsWith('/health'))).toEqual([]);
  });

  it('is the same engine when forced with --engine', async () => {
    srv = await serveFixture(engine, { apiKey: KEY });
    const info = await probeTarget({ baseUrl: srv.url, apiKey: KEY, engine, hardware: noHw });
    expect(info.engine.name).toBe(engine);
    expect(info.engine.detectedBy).toBe('--engine');
    expect(info.maxModelLen).toBe(exp.maxModelLen);
  });

  it('reads its metrics into a server sample', () => {
    const a = adapterByName(engine);
    if (!exp.sample) {
      expect(a.metricNames.running ?? []).toEqual([]);
      return;
    }
    const file = engine === 'trtllm' ? null : 'metrics.txt';
    const body = file
      ? fixtureText(engine, file)
      : JSON.stringify(
          (JSON.parse(fixtureText(engine, 'routes.json')) as Record<string, { body: unknown }>)[
            'GET /metrics'
          ]!.body,
        );
    const s = a.readSample ? a.readSample(body) : readPromSample(body, a.metricNames);
    for (const [k, v] of Object.entries(exp.sample))
      expect((s as Record<string, number>)[k], k).toBeCloseTo(v, 9);
  });

  it('maps its error bodies to stable codes', () => {
    let cases: Array<{ what: string; status: number; body: unknown; code: string }> = [];
    try {
      cases = JSON.parse(fixtureText(engine, 'errors.json')) as typeof cases;
    } catch {
      return; // generic has no engine-specific errors
    }
    for (const c of cases) {
      const text = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
      expect(errorCodeFor(c.status, parseErrorBody(text)), c.what).toBe(c.code);
    }
  });
});

describe('engine specifics', () => {
  it('vLLM error bodies map to stable codes', () => {
    const cases = JSON.parse(fixtureText('vllm', 'errors.json')) as Array<{
      what: string;
      status: number;
      body: unknown;
      code: string;
    }>;
    for (const c of cases)
      expect(errorCodeFor(c.status, parseErrorBody(JSON.stringify(c.body))), c.what).toBe(c.code);
  });

  it('llama.cpp: a unified KV pool is the per-slot n_ctx, not n_ctx × slots', async () => {
    const props = JSON.parse(
      readFileSync(
        fileURLToPath(new URL('../fixtures/engines/llamacpp/props-unified.json', import.meta.url)),
        'utf8',
      ),
    ) as unknown;
    srv = await serveFixture('llamacpp', { patch: { 'GET /props': { body: props } } });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.maxModelLen).toBe(40960);
    expect(info.kvCapacityTokens).toBe(40960);
    expect(info.kvCapacitySource).toMatch(/unified/);
  });

  it('llama.cpp: /props behind a key without one still probes (models are public) and says what is missing', async () => {
    srv = await serveFixture('llamacpp', { apiKey: KEY });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.engine.name).toBe('llamacpp');
    expect(info.maxModelLen).toBeUndefined();
    expect(info.warnings?.join(' ')).toMatch(/API key/);
  });

  it('SGLang: newer /server_info path and metrics off', async () => {
    const routes = JSON.parse(fixtureText('sglang', 'routes.json')) as Record<string, unknown>;
    srv = await serveFixture('sglang', {
      patch: {
        'GET /server_info': routes['GET /get_server_info'] as object,
        'GET /get_server_info': null,
        'GET /metrics': null,
      },
    });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.kvCapacitySource).toBe('GET /server_info max_total_num_tokens');
    expect(info.engine.quantization).toBe('fp8');
    expect(info.metricsAvailable).toBe(false);
    expect(info.warnings?.join(' ')).toMatch(/--enable-metrics/);
  });

  it('TGI: detected from the bare-array model list when /info is hidden', async () => {
    srv = await serveFixture('tgi', { patch: { 'GET /info': null } });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.engine.name).toBe('tgi');
    expect(info.engine.detectedBy).toBe('GET /v1/models (bare array)');
  });

  it('Ollama: --model picks a listed model; context then comes from /api/show', async () => {
    srv = await serveFixture('ollama', { patch: { 'GET /api/ps': { body: { models: [] } } } });
    const info = await probeTarget({ baseUrl: srv.url, model: 'qwen3:8b', hardware: noHw });
    expect(info.model).toBe('qwen3:8b');
    expect(info.maxModelLen).toBe(131072);
    expect(info.maxModelLenSource).toMatch(/api\/show/);
    expect(info.engine.quantization).toBe('Q4_K_M');
  });

  it('TRT-LLM: Prometheus at /prometheus/metrics wins for sampling and capacity; idle JSON stats are no evidence of capacity', async () => {
    srv = await serveFixture('trtllm', {
      patch: { 'GET /prometheus/metrics': { bodyFile: 'prometheus.txt' }, 'GET /metrics': { body: [] } },
    });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.metricsPath).toBe('/prometheus/metrics');
    expect(info.kvCapacityTokens).toBe(8192 * 64);
    const s = adapterByName('trtllm').readSample!(fixtureText('trtllm', 'prometheus.txt'));
    expect(s).toMatchObject({
      running: 9,
      waiting: 1,
      kvUsage: 0.3,
      specDraftTokens: 3000,
      specAcceptedTokens: 1800,
    });
    await srv.close();
    srv = await serveFixture('trtllm', { patch: { 'GET /metrics': { body: [] } } });
    const idle = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(idle.kvCapacityTokens).toBeUndefined();
    expect(idle.warnings?.join(' ')).toMatch(/--kv-capacity/);
  });

  it('TRT-LLM is told from vLLM by its JSON /metrics when owned_by says nothing', async () => {
    srv = await serveFixture('trtllm', {
      patch: { 'GET /v1/models': { body: { object: 'list', data: [{ id: 'x', owned_by: 'me' }] } } },
    });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.engine.name).toBe('trtllm');
    expect(info.engine.detectedBy).toBe('GET /metrics (JSON iteration stats)');
  });
});

describe('llama.cpp KV pool: unified or split', () => {
  const model = (train?: number) => ({ id: 'm', raw: train ? { meta: { n_ctx_train: train } } : {} });
  it.each([
    ['explicit kv_unified flag wins', 8192, 4, { kv_unified: true }, model(131072), 8192, 'exact'],
    ['explicit split flag wins', 8192, 4, { kv_unified: false }, model(8192), 32768, 'lower-bound'],
    [
      'default -c 0, unified: slot holds the training context',
      131072,
      4,
      {},
      model(131072),
      131072,
      'lower-bound',
    ],
    ['-c 65536, 4 unified slots capped at n_ctx_train', 32768, 4, {}, model(32768), 32768, 'lower-bound'],
    [
      'split with a large -c: slots below the training context',
      32768,
      16,
      {},
      model(131072),
      524288,
      'inferred',
    ],
    [
      'split with default -c 0: a fraction of the training context',
      32768,
      4,
      {},
      model(131072),
      131072,
      'inferred',
    ],
    ['no training context known: one pool of at least a slot', 8192, 4, {}, model(), 8192, 'lower-bound'],
    ['one slot below the training context', 8192, 1, {}, model(131072), 8192, 'exact'],
  ] as const)('%s', async (_what, slotCtx, slots, props, m, kv, bound) => {
    const { kvFromSlots } = await import('../../src/target/engines/llamacpp.js');
    expect(kvFromSlots(slotCtx, slots, props, m)).toMatchObject({
      kvCapacityTokens: kv,
      kvCapacityBound: bound,
    });
  });
});

describe('scrape filtering', () => {
  it('reads the wanted samples out of a large exposition (histograms skipped, prefixes not confused)', () => {
    const big = [fixtureText('vllm', 'metrics.txt')];
    for (let e = 0; e < 8; e++) {
      for (let b = 0; b < 200; b++)
        big.push(`vllm:inter_token_latency_seconds_bucket{engine="${e}",le="${b}"} ${b}`);
    }
    big.push('vllm:num_requests_running_extra{engine="0"} 1000', '# TYPE vllm:num_requests_waiting gauge');
    const s = readPromSample(big.join('\n'), adapterByName('vllm').metricNames);
    expect(s).toEqual({
      running: 5,
      waiting: 1,
      kvUsage: 0.3,
      prefixCacheHits: 150000,
      prefixCacheQueries: 200000,
      specDrafts: 1000,
      specDraftTokens: 7000,
      specAcceptedTokens: 3500,
    });
  });
});
