import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import type { FixtureServer } from './fixture-server.js';
import { serveFixture } from './fixture-server.js';

const KEY = 'sk-cli-probe-distinctive-5150';
let srv: FixtureServer;
beforeAll(async () => {
  srv = await serveFixture('vllm', { apiKey: KEY });
});
afterAll(async () => {
  await srv.close();
});

describe('llm-inference-bench probe', () => {
  it('prints a readable block', async () => {
    const r = await runCliInProcess([
      'probe',
      '--base-url',
      `${srv.url}/v1`,
      '--api-key',
      KEY,
      '--launch-command',
      `vllm serve m --api-key ${KEY}`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Engine\s+vllm \(detected by GET \/v1\/models owned_by\)$/m);
    expect(r.stdout).toMatch(/^Version\s+0\.30\.1rc1\.dev162\+g2617fe938$/m);
    expect(r.stdout).toMatch(/^Max model length\s+1,048,576 tokens/m);
    expect(r.stdout).toMatch(/^KV capacity\s+2,500,096 tokens \(vllm:cache_config_info/m);
    expect(r.stdout).toMatch(/^Metrics\s+yes/m);
    expect(r.stdout).toMatch(/^Reasoning field\s+reasoning$/m);
    expect(r.stdout).toMatch(/^Launch command\s+vllm serve m --api-key <redacted>$/m);
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('--json with the key from the environment', async () => {
    const r = await runCliInProcess(
      [
        'probe',
        '--base-url',
        srv.url,
        '--json',
        '--gpu-name',
        'H200',
        '--gpu-count',
        '8',
        '--quantization',
        'FP8',
      ],
      {
        env: { OPENAI_API_KEY: KEY },
      },
    );
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(j).toMatchObject({
      baseUrl: `${srv.url}/v1`,
      model: 'glm-5.3-flash-dflash2',
      maxModelLen: 1048576,
      kvCapacityTokens: 2500096,
      metricsAvailable: true,
      engine: {
        name: 'vllm',
        version: '0.30.1rc1.dev162+g2617fe938',
        commit: '2617fe938',
        quantization: 'FP8',
      },
      hardware: { gpuName: 'H200', gpuCount: 8 },
    });
    expect(r.stdout).not.toContain(KEY);
  });

  it.each([
    ['wrong key', ['--api-key', 'sk-wrong-key-000'], 4, 'AUTH_FAILED'],
    ['no key', [], 4, 'AUTH_FAILED'],
    ['unknown model', ['--api-key', KEY, '--model', 'nope'], 5, 'MODEL_NOT_FOUND'],
    ['unknown engine', ['--api-key', KEY, '--engine', 'foo'], 2, 'USAGE'],
  ])('%s: one line, stable code, no stack', async (_what, extra, code, name) => {
    const r = await runCliInProcess(['probe', '--base-url', srv.url, ...extra], {
      env: { OPENAI_API_KEY: '', LLM_BENCH_API_KEY: '' },
    });
    expect(r.code).toBe(code);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^error \\[${name}\\]`));
    expect(r.stderr).not.toContain('sk-wrong-key-000');
  });

  // A key in the URL is stripped before anything is sent (a URL is stored and logged): the refusal says so, and
  // how to send it, without the key.
  it.each([
    ['user:key@', (u: URL) => `${u.protocol}//user:${KEY}@${u.host}/v1`],
    ['key@', (u: URL) => `${u.protocol}//${KEY}@${u.host}/v1`],
    ['?api_key=', (u: URL) => `${u.origin}/v1?api_key=${KEY}`],
    ['?key=', (u: URL) => `${u.origin}/v1?key=${KEY}`],
  ])('a key given in --base-url as %s: the refusal says it was not sent', async (_form, url) => {
    const baseUrl = url(new URL(srv.url));
    for (const cmd of ['probe', 'plan', 'run']) {
      const r = await runCliInProcess([cmd, '--base-url', baseUrl], {
        env: { OPENAI_API_KEY: '', LLM_BENCH_API_KEY: '' },
      });
      expect(r.code, cmd).toBe(4);
      expect(r.stderr).toBe(
        'error [AUTH_FAILED]: the server refused a request without an API key (HTTP 401: Unauthorized). ' +
          'Credentials in --base-url are not sent; pass --api-key-file or OPENAI_API_KEY.\n',
      );
      expect(r.stdout + r.stderr).not.toContain(KEY);
    }
    // without credentials in the URL the line does not mention them
    const bare = await runCliInProcess(['probe', '--base-url', srv.url], {
      env: { OPENAI_API_KEY: '', LLM_BENCH_API_KEY: '' },
    });
    expect(bare.stderr).not.toContain('--base-url are not sent');
  });

  it('unreachable and not-OpenAI servers', async () => {
    const down = await runCliInProcess(['probe', '--base-url', 'http://127.0.0.1:1/v1', '--timeout', '2']);
    expect(down.code).toBe(3);
    // The refusal in words, the errno code not repeated.
    expect(down.stderr).toBe(
      'error [TARGET_UNREACHABLE]: http://127.0.0.1:1: nothing is listening there (connection refused). ' +
        'Check that the server is running and --base-url (host and port) is right.\n',
    );
    const html = await serveFixture('vllm', {
      routes: {
        'GET /v1/models': { headers: { 'content-type': 'text/html' }, body: '<!doctype html><p>hi' },
      },
    });
    try {
      const r = await runCliInProcess(['probe', '--base-url', `${html.url}/v1`]);
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/^error \[NOT_OPENAI_COMPATIBLE\].*HTML/);
      // The URL already ends in /v1: the hint names the port, not "point --base-url at its /v1".
      const port = new URL(html.url).port;
      expect(r.stderr).toContain(`Check that port ${port} is the LLM server's own, not a web UI`);
      expect(r.stderr).not.toContain('/v1 (e.g.');
    } finally {
      await html.close();
    }
    const none = await serveFixture('vllm', { routes: {} });
    try {
      const r = await runCliInProcess(['probe', '--base-url', none.url]);
      expect(r.code).toBe(7);
      expect(r.stderr).toContain('answered with HTTP 404, not an OpenAI model list.');
      expect(r.stderr).toContain(
        `Check the port (${new URL(none.url).port}) and any path the server sits under`,
      );
    } finally {
      await none.close();
    }
  });
});
