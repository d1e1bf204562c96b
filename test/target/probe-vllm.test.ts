import { afterEach, describe, expect, it } from 'vitest';
import { probeTarget } from '../../src/target/probe.js';
import { isBenchError } from '../../src/errors.js';
import type { FixtureServer } from './fixture-server.js';
import { GENERATING, serveFixture } from './fixture-server.js';

let srv: FixtureServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

const KEY = 'sk-probe-test-7f3a9c';
const noHw = { source: 'none' as const };

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return isBenchError(e) ? e.code : `not a BenchError: ${String(e)}`;
  }
}

describe('probe: vLLM fixture', () => {
  it('detects vLLM and discovers version, commit, max length, KV capacity summed over DP engines', async () => {
    srv = await serveFixture('vllm', { apiKey: KEY });
    const info = await probeTarget({ baseUrl: `${srv.url}/v1`, apiKey: KEY, hardware: noHw });
    expect(info.engine.name).toBe('vllm');
    expect(info.engine.detectedBy).toBe('GET /v1/models owned_by');
    expect(info.engine.version).toBe('0.30.1rc1.dev162+g2617fe938');
    expect(info.engine.commit).toBe('2617fe938');
    expect(info.engine.repository).toBe('github.com/vllm-project/vllm');
    expect(info.model).toBe('glm-5.3-flash-dflash2');
    expect(info.maxModelLen).toBe(1048576);
    expect(info.kvCapacityTokens).toBe(2 * 19532 * 64);
    expect(info.kvCapacitySource).toMatch(/num_gpu_blocks × block_size, summed over 2 engines/);
    expect(info.metricsAvailable).toBe(true);
    expect(info.metricsPath).toBe('/metrics');
    expect(info.reasoningField).toBe('reasoning');
    expect(info.cachedTokensSource).toMatch(/--enable-prompt-tokens-details/);
    expect(info.extensions).toEqual({
      ignoreEos: true,
      minTokens: true,
      streamOptions: true,
      continuousUsage: true,
      maxCompletionTokens: true,
    });
    expect(info.tokenizeAvailable).toBe(true);
    expect(await info.tokenize?.('hello world', 'chat')).toBe(2);
    expect(srv.requests.some((r) => GENERATING.includes(r.path))).toBe(false);
    expect(srv.requests.some((r) => r.path === '/health')).toBe(false);
  });

  it('prefers kv_cache_size_tokens over blocks × block_size, and reads the deprecated usage gauge', async () => {
    srv = await serveFixture('vllm', { patch: { 'GET /metrics': { bodyFile: 'metrics-kv-size.txt' } } });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.kvCapacityTokens).toBe(2501184);
    expect(info.kvCapacitySource).toMatch(/kv_cache_size_tokens/);
  });

  it('detects vLLM from /metrics when owned_by is not vllm', async () => {
    srv = await serveFixture('vllm', {
      patch: { 'GET /v1/models': { body: { object: 'list', data: [{ id: 'm', owned_by: 'someone' }] } } },
    });
    const info = await probeTarget({ baseUrl: srv.url, hardware: noHw });
    expect(info.engine.name).toBe('vllm');
    expect(info.engine.detectedBy).toBe('GET /metrics');
  });

  it('maps failures to stable codes', async () => {
    srv = await serveFixture('vllm', { apiKey: KEY });
    expect(await codeOf(probeTarget({ baseUrl: srv.url, hardware: noHw }))).toBe('AUTH_FAILED');
    expect(await codeOf(probeTarget({ baseUrl: srv.url, apiKey: 'wrong-key', hardware: noHw }))).toBe(
      'AUTH_FAILED',
    );
    expect(await codeOf(probeTarget({ baseUrl: srv.url, apiKey: KEY, model: 'nope', hardware: noHw }))).toBe(
      'MODEL_NOT_FOUND',
    );
    expect(
      await codeOf(probeTarget({ baseUrl: srv.url, apiKey: KEY, engine: 'bogus', hardware: noHw })),
    ).toBe('USAGE');
    const url = srv.url;
    await srv.close();
    srv = undefined;
    expect(await codeOf(probeTarget({ baseUrl: url, hardware: noHw, fetchTimeoutMs: 2000 }))).toBe(
      'TARGET_UNREACHABLE',
    );
  });

  it('an HTML page or a server without /v1/models is not OpenAI-compatible', async () => {
    srv = await serveFixture('vllm', {
      routes: {
        'GET /v1/models': {
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: '<html><body>Grafana</body></html>',
        },
      },
    });
    expect(await codeOf(probeTarget({ baseUrl: srv.url, hardware: noHw }))).toBe('NOT_OPENAI_COMPATIBLE');
    await srv.close();
    srv = await serveFixture('vllm', { routes: {} });
    expect(await codeOf(probeTarget({ baseUrl: srv.url, hardware: noHw }))).toBe('NOT_OPENAI_COMPATIBLE');
  });

  it('--engine generic skips detection and sends no vLLM extensions', async () => {
    srv = await serveFixture('vllm');
    const info = await probeTarget({ baseUrl: srv.url, engine: 'generic', hardware: noHw });
    expect(info.engine.name).toBe('generic');
    expect(info.engine.detectedBy).toBe('--engine');
    expect(info.maxModelLen).toBe(1048576);
    expect(info.extensions.ignoreEos).toBe(false);
    expect(info.metricsAvailable).toBe(false);
  });
});

describe('probe: a server that is still loading', () => {
  it('llama.cpp 503 "Loading model" is TARGET_UNREACHABLE with the reason', async () => {
    srv = await serveFixture('llamacpp', {
      routes: {
        'GET /v1/models': {
          status: 503,
          body: { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } },
        },
      },
    });
    await expect(probeTarget({ baseUrl: srv.url, hardware: noHw })).rejects.toMatchObject({
      code: 'TARGET_UNREACHABLE',
      message: expect.stringMatching(/not ready \(HTTP 503: Loading model\)/) as unknown,
    });
  });
});

describe('probe: a server that never answers unknown paths', () => {
  it('fingerprints in one parallel round, not one timeout per engine', async () => {
    const { createServer } = await import('node:http');
    // The paths asked before the first unanswered request gave up: one round sends every engine's fingerprint
    // at once, one at a time would have asked one.
    const asked: string[] = [];
    let askedWhenFirstGaveUp: string[] | undefined;
    const hang = createServer((req, res) => {
      if (req.url === '/v1/models')
        return void res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', owned_by: 'x' }] }));
      // every other path: no answer at all
      asked.push(req.url!);
      res.on('close', () => (askedWhenFirstGaveUp ??= [...asked]));
    });
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hang.address() as { port: number }).port}`;
    try {
      const info = await probeTarget({
        baseUrl: url,
        hardware: noHw,
        fetchTimeoutMs: 400,
        launchCommand: 'x',
      });
      expect(info.engine.name).toBe('generic');
      // llama.cpp, Ollama, TGI and SGLang's own paths (docs/engines.md "Detection order"), all in one round.
      expect(askedWhenFirstGaveUp).toEqual(
        expect.arrayContaining(['/props', '/api/version', '/info', '/get_server_info']),
      );
    } finally {
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
    }
  });
});

describe('serverRoot', () => {
  it('normalises what users type', async () => {
    const { serverRoot } = await import('../../src/target/probe.js');
    expect(serverRoot('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000');
    expect(serverRoot('http://127.0.0.1:8000/v1/')).toBe('http://127.0.0.1:8000');
    expect(serverRoot('http://127.0.0.1:8000')).toBe('http://127.0.0.1:8000');
    expect(serverRoot('127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000');
    expect(serverRoot('https://user:pw@gpu.example/proxy/v1?x=1')).toBe('https://gpu.example/proxy');
    expect(() => serverRoot('ftp://x/v1')).toThrow(/http/);
    expect(() => serverRoot('http://')).toThrow(/not a URL/);
  });
});
