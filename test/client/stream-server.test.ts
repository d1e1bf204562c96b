import { afterEach, describe, expect, it } from 'vitest';
import net from 'node:net';
import { streamRequest } from '../../src/client/stream.js';
import { chatChunk, sleep, sse, startLocalServer, type LocalServer, type Route } from './local-server.js';

const KEY = 'sk-test-DISTINCTIVE-7f3a9c';
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function serve(route: Route) {
  server = await startLocalServer(route);
  return server;
}
const finish = (reason: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: reason }] })}\n\n`;
const usage = (completion: number, prompt = 12) =>
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, prompt_tokens_details: { cached_tokens: 4 } } })}\n\n`;

describe('streamRequest against a local server', () => {
  it('times TTFT at the first token-bearing delta, not the role chunk, and counts tokens from usage', async () => {
    const s = await serve(async (_req, res) => {
      sse(res);
      res.write(chatChunk({ role: 'assistant', content: '' }));
      await sleep(40);
      res.write(chatChunk({ reasoning: 'think' }));
      await sleep(5);
      res.write(chatChunk({ content: 'Hello world' }));
      res.write(finish('length'));
      res.write(usage(6));
      res.end('data: [DONE]\n\n');
    });
    const r = await streamRequest({
      baseUrl: s.baseUrl,
      api: 'chat',
      body: { model: 'm' },
      apiKey: KEY,
      requestId: 'r-1',
    });
    expect(r.ok).toBe(true);
    expect(r.firstTokenAtMs! - r.sentAtMs).toBeGreaterThanOrEqual(38);
    expect(r.headersAtMs!).toBeLessThan(r.firstTokenAtMs!);
    expect(r.outputTokens).toBe(6);
    expect(r.chunks.reduce((a, c) => a + c[1], 0)).toBe(6);
    expect(r.tokenCountSource).toBe('final_usage');
    expect(r.promptTokens).toBe(12);
    expect(r.cachedTokens).toBe(4);
    expect(r.finishReason).toBe('length');
    expect(r.reasoningTokens).toBeGreaterThan(0);
    const req = s.requests[0]!;
    expect(req.url).toBe('/v1/chat/completions');
    expect(req.headers['x-request-id']).toBe('r-1');
    expect(JSON.parse(req.body).stream).toBe(true);
  });

  it('turns an HTTP error into http_status data with the body message and no key', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `Invalid API Key ${KEY}`, type: 'authentication_error', code: 401 },
        }),
      );
    });
    const r = await streamRequest({
      baseUrl: s.baseUrl,
      api: 'completions',
      body: { model: 'm' },
      apiKey: KEY,
    });
    expect(r.ok).toBe(false);
    expect(r.error?.kind).toBe('http_status');
    expect(r.error?.status).toBe(401);
    expect(r.error?.message).toContain('Invalid API Key');
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it('reports EOF without [DONE] or finish as stream_truncated, keeping the chunks', async () => {
    const s = await serve(async (_req, res) => {
      sse(res);
      res.write(chatChunk({ content: 'a' }));
      res.write(chatChunk({ content: 'b' }));
      await sleep(10);
      res.end();
    });
    const r = await streamRequest({ baseUrl: s.baseUrl, api: 'chat', body: {}, charsPerTokenEstimate: 1 });
    expect(r.error?.kind).toBe('stream_truncated');
    expect(r.chunks).toHaveLength(2);
    expect(r.tokenCountSource).toBe('estimate');
  });

  it('reports a connection cut mid-stream as stream_truncated', async () => {
    const s = await serve(async (req, res) => {
      sse(res);
      res.write(chatChunk({ content: 'a' }));
      await sleep(10);
      req.socket.destroy();
    });
    const r = await streamRequest({ baseUrl: s.baseUrl, api: 'chat', body: {} });
    expect(r.error?.kind).toBe('stream_truncated');
    expect(r.chunks).toHaveLength(1);
  });

  it('times out waiting for the first token (headers never sent, as llama.cpp does while queueing)', async () => {
    const s = await serve(() => undefined);
    const t0 = performance.now();
    const r = await streamRequest({
      baseUrl: s.baseUrl,
      api: 'chat',
      body: {},
      timeouts: { firstTokenMs: 150 },
    });
    expect(r.error?.kind).toBe('timeout_first_token');
    expect(performance.now() - t0).toBeLessThan(1500);
  });

  it('times out when tokens stop (idle) and keeps what arrived', async () => {
    const s = await serve(async (_req, res) => {
      sse(res);
      res.write(chatChunk({ content: 'x' }));
      await sleep(50);
      res.write(': keep-alive\n\n'); // a ping is not a token: the stream is still stalled
    });
    const r = await streamRequest({
      baseUrl: s.baseUrl,
      api: 'chat',
      body: {},
      timeouts: { idleMs: 150 },
      charsPerTokenEstimate: 1,
    });
    expect(r.error?.kind).toBe('timeout_idle');
    expect(r.chunks).toHaveLength(1);
    expect(r.firstTokenAtMs).toBeDefined();
  });

  it('aborts through the signal and returns the tokens that arrived, with continuous usage exact', async () => {
    const ac = new AbortController();
    const s = await serve(async (_req, res) => {
      sse(res);
      for (let i = 1; i <= 100; i++) {
        if (res.destroyed) return;
        res.write(chatChunk({ content: `t${i}` }, { usage: { prompt_tokens: 3, completion_tokens: i * 2 } }));
        if (i === 5) {
          await sleep(300); // the client has read the first five by now
          ac.abort();
        }
        await sleep(2);
      }
      res.end('data: [DONE]\n\n');
    });
    const r = await streamRequest({ baseUrl: s.baseUrl, api: 'chat', body: {}, signal: ac.signal });
    expect(r.error?.kind).toBe('aborted');
    expect(r.chunks.length).toBeGreaterThanOrEqual(5);
    expect(r.chunks.length).toBeLessThan(100);
    expect(r.tokenCountSource).toBe('continuous_usage');
    expect(r.outputTokens).toBe(r.chunks.length * 2);
    for (const c of r.chunks) expect(c[1]).toBe(2);
  });

  it('returns aborted at once for an already aborted signal', async () => {
    const s = await serve((_req, res) => {
      res.end();
    });
    const ac = new AbortController();
    ac.abort();
    const r = await streamRequest({ baseUrl: s.baseUrl, api: 'chat', body: {}, signal: ac.signal });
    expect(r.error?.kind).toBe('aborted');
    expect(r.chunks).toEqual([]);
  });

  it('reports a refused connection as connect', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer();
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const r = await streamRequest({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      api: 'chat',
      body: {},
      apiKey: KEY,
    });
    expect(r.error?.kind).toBe('connect');
    expect(r.error?.message).not.toContain(KEY);
  });

  it('reports an in-stream error event (TGI style, 200 then error) as stream_error_event', async () => {
    const s = await serve((_req, res) => {
      sse(res);
      res.write(
        `data: ${JSON.stringify({ error: { message: '`inputs` must have less than 8191 tokens. Given: 9000', http_status_code: 422 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    });
    const r = await streamRequest({ baseUrl: s.baseUrl, api: 'chat', body: {} });
    expect(r.error).toEqual({
      kind: 'stream_error_event',
      status: 422,
      message: '`inputs` must have less than 8191 tokens. Given: 9000',
      reason: 'context_too_long',
    });
  });

  it('reads long streams of many tiny reads over reused keep-alive connections', async () => {
    const s = await serve(async (_req, res) => {
      sse(res);
      for (let i = 0; i < 50; i++) res.write(chatChunk({ content: 'w' }));
      res.write(finish('stop'));
      res.end(usage(50));
    });
    for (let k = 0; k < 4; k++) {
      const r = await streamRequest({ baseUrl: s.baseUrl, api: 'chat', body: {} });
      expect(r.ok).toBe(true);
      expect(r.outputTokens).toBe(50);
      expect(r.chunks.every((c) => c[1] === 1)).toBe(true);
    }
    // A completed stream leaves its socket in the keep-alive pool (undici alternates between two when the
    // next request is dispatched before the previous socket is marked idle).
    expect(new Set(s.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(2);
  });
});

describe('onFirstToken', () => {
  it('reports the first token-bearing arrival once, equal to the record', async () => {
    const s = await serve(async (_req, res) => {
      sse(res);
      res.write(chatChunk({ role: 'assistant', content: '' }));
      await sleep(20);
      res.write(chatChunk({ content: 'a' }));
      res.write(chatChunk({ content: 'b' }));
      res.end('data: [DONE]\n\n');
    });
    const seen: number[] = [];
    const r = await streamRequest({
      baseUrl: s.baseUrl,
      api: 'chat',
      body: {},
      onFirstToken: (t) => seen.push(t),
    });
    expect(seen).toEqual([r.firstTokenAtMs]);
  });
});
