import { afterEach, describe, expect, it } from 'vitest';
import { getJson, getText, httpGet, httpPost, joinUrl, postJson } from '../../src/client/http.js';
import { startLocalServer, type LocalServer, type Route } from './local-server.js';

const KEY = 'sk-http-DISTINCTIVE-91c2';
let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const serve = async (route: Route) => (server = await startLocalServer(route));

describe('http helpers', () => {
  it('joins paths onto the base URL and keeps absolute URLs', () => {
    expect(joinUrl('http://h:1/v1/', '/models')).toBe('http://h:1/v1/models');
    expect(joinUrl('http://h:1', 'metrics')).toBe('http://h:1/metrics');
    expect(joinUrl('http://h:1/v1', 'http://o:2/x')).toBe('http://o:2/x');
  });

  it('returns parsed JSON with status and headers, sending the key as a bearer token', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-thing': 'a' });
      res.end('{"data":[{"id":"m"}]}');
    });
    const r = await getJson<{ data: Array<{ id: string }> }>(s.baseUrl, '/models', { apiKey: KEY });
    expect(r.ok && r.body.data[0]!.id).toBe('m');
    expect(r.ok && r.headers['x-thing']).toBe('a');
    expect(s.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('posts JSON bodies', async () => {
    const s = await serve((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: JSON.parse(body) }));
    });
    const r = await postJson(s.url, '/tokenize', { prompt: 'hi' });
    expect(r).toMatchObject({ ok: true, status: 200, body: { echo: { prompt: 'hi' } } });
  });

  it('turns a non-2xx into http_status with the engine message, never the key', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `The model \`x\` does not exist (key ${KEY})`, type: 'NotFoundError', code: 404 },
        }),
      );
    });
    const r = await getJson(s.baseUrl, '/models', { apiKey: KEY });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.kind).toBe('http_status');
    expect(r.status).toBe(404);
    expect(r.message).toContain('does not exist');
    expect(r.error).toMatchObject({ type: 'NotFoundError', code: 404, reason: 'model_not_found' });
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it('reads any content on a full URL: JSON as body, Prometheus text with body undefined', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('vllm:num_requests_running 3\n');
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { type: 'exceed_context_size_error', code: 400, message: 'too big' } }),
      );
    });
    const m = await httpGet(`${s.url}/metrics`);
    expect(m).toMatchObject({
      ok: true,
      status: 200,
      body: undefined,
      text: 'vllm:num_requests_running 3\n',
    });
    const big = await httpPost(`${s.url}/v1/chat/completions`, {});
    expect(big).toMatchObject({ ok: false, kind: 'http_status', status: 400 });
    expect(!big.ok && big.error?.reason).toBe('context_too_long');
  });

  it('reports bad_json, timeout and connect failures as typed results', async () => {
    const s = await serve((req, res) => {
      if (req.url === '/slow') return; // never answers
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>not json</html>');
    });
    const bad = await getJson(s.url, '/page');
    expect(bad).toMatchObject({ ok: false, kind: 'bad_json', status: 200 });
    const text = await getText(s.url, '/page');
    expect(text).toMatchObject({ ok: true, body: '<html>not json</html>' });
    const slow = await getJson(s.url, '/slow', { timeoutMs: 150 });
    expect(slow).toMatchObject({ ok: false, kind: 'timeout' });
    const url = s.url;
    await s.close();
    server = undefined;
    const refused = await getJson(url, '/x', { apiKey: KEY, timeoutMs: 2000 });
    expect(refused).toMatchObject({ ok: false, kind: 'connect' });
    expect(JSON.stringify(refused)).not.toContain(KEY);
  });
});
