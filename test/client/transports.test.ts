// The lean HTTP/1.1 client and undici must give the same RequestRecord for the same exchange: the same
// requests, one server, both transports, records compared whole except their times.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OriginPolicies } from '../../src/client/transport/origin-policy.js';
import type { RequestRecord } from '../../src/client/types.js';
import { streamRequest, type HttpClient } from '../../src/client/stream.js';
import { chatChunk, sleep, sse, startLocalServer, type LocalServer } from './local-server.js';

const finish = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] })}\n\n`;
const usage = (n: number) =>
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: n, prompt_tokens_details: { cached_tokens: 2 } } })}\n\n`;

// What each request asks of the server: the scenario's name rides in the body.
let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer(
    async (req, res, body) => {
      const scenario = (JSON.parse(body) as { scenario: string }).scenario;
      switch (scenario) {
        case 'normal':
          sse(res);
          res.write(chatChunk({ role: 'assistant', content: '' }));
          for (const w of ['Hello', ' wor', 'ld']) res.write(chatChunk({ content: w }));
          res.write(finish);
          res.write(usage(3));
          res.end('data: [DONE]\n\n');
          return;
        case 'usage':
          sse(res);
          for (let i = 1; i <= 6; i++)
            res.write(
              chatChunk({ content: `t${i} ` }, { usage: { prompt_tokens: 7, completion_tokens: 2 * i } }),
            );
          res.end(finish + usage(12) + 'data: [DONE]\n\n');
          return;
        case 'error-400':
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              object: 'error',
              message:
                "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
              type: 'BadRequestError',
              param: null,
              code: 400,
            }),
          );
          return;
        case '429':
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
          res.end(
            JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit', code: 429 } }),
          );
          return;
        case 'cut':
          sse(res);
          res.write(chatChunk({ content: 'a' }));
          res.write(chatChunk({ content: 'b' }));
          await sleep(30);
          req.socket.destroy();
          return;
        case 'refuse': // read, then closed unanswered: a counted failure (no connection is reused here: the
          // server announces keep-alive timeout=0, under the client's 1 s margin)
          req.socket.destroy();
          return;
        case 'abort':
          sse(res);
          for (let i = 0; i < 5; i++) res.write(chatChunk({ content: `w${i}` }));
          return; // and nothing more: the client aborts
        default:
          res.writeHead(404);
          res.end();
      }
    },
    { keepAliveTimeoutMs: 150 },
  );
});
afterAll(() => server.close());

function timeless(r: RequestRecord) {
  const {
    calledAtMs: _c,
    sentAtMs: _s,
    endAtMs: _e,
    headersAtMs,
    firstTokenAtMs,
    maxGapMs,
    stalls: _st,
    chunks,
    ...rest
  } = r;
  return {
    ...rest,
    hasHeaders: headersAtMs !== undefined,
    hasFirstToken: firstTokenAtMs !== undefined,
    hasMaxGap: maxGapMs !== undefined,
    chunkTokens: chunks.map((c) => c[1]),
  };
}

async function scenarios(httpClient: HttpClient) {
  const send = (scenario: string, signal?: AbortSignal) =>
    streamRequest({
      baseUrl: server.baseUrl,
      api: 'chat',
      body: { model: 'm', scenario },
      apiKey: 'sk-transport-test',
      requestId: `${httpClient}-${scenario}`,
      charsPerTokenEstimate: 1,
      httpClient,
      ...(signal ? { signal } : {}),
    });
  const out: Record<string, RequestRecord> = {};
  for (const s of ['normal', 'usage', 'error-400', '429', 'cut', 'normal', 'refuse']) out[s] = await send(s);
  const ac = new AbortController();
  const aborted = send('abort', ac.signal);
  await sleep(200); // the five chunks are in by now
  ac.abort();
  out.abort = await aborted;
  out.beforeIdle = await send('normal');
  await sleep(400); // the server closes the idle keep-alive connection (150 ms)
  out.afterIdle = await send('normal');
  return out;
}

describe('the lean client and undici give the same records', () => {
  it('normal, usage, 400 and 429 bodies, a cut, a refusal, an abort, a server-closed idle connection', async () => {
    const lean = await scenarios('lean');
    const undici = await scenarios('undici');
    for (const k of Object.keys(lean))
      expect({ k, r: timeless(lean[k]!) }).toEqual({ k, r: timeless(undici[k]!) });
    // and they are the records these exchanges should give
    expect(lean.normal).toMatchObject({
      ok: true,
      outputTokens: 3,
      tokenCountSource: 'final_usage',
      cachedTokens: 2,
    });
    expect(lean.usage).toMatchObject({ ok: true, outputTokens: 12, tokenCountSource: 'continuous_usage' });
    expect(lean['error-400']!.error).toMatchObject({
      kind: 'http_status',
      status: 400,
      reason: 'context_too_long',
    });
    expect(lean['429']!.error).toMatchObject({
      kind: 'http_status',
      status: 429,
      reason: 'other',
      type: 'rate_limit',
    });
    expect(lean.cut!.error).toEqual({
      kind: 'stream_truncated',
      message: 'connection lost mid-stream: other side closed',
    });
    expect(lean.cut!.chunks).toHaveLength(2);
    expect(lean.abort!.error?.kind).toBe('aborted');
    expect(lean.abort!.chunks).toHaveLength(5);
    expect(lean.afterIdle!.ok).toBe(true);
    expect(lean.refuse!.error).toEqual({ kind: 'connect', message: 'connection failed: other side closed' });
    expect(server.requests.filter((q) => q.headers['x-request-id'] === 'lean-refuse')).toHaveLength(1);
    // the times are each transport's own, in the same order
    for (const r of Object.values(lean)) {
      expect(r.sentAtMs).toBeGreaterThanOrEqual(r.calledAtMs!);
      expect(r.endAtMs).toBeGreaterThanOrEqual(r.sentAtMs);
      if (r.headersAtMs !== undefined) expect(r.headersAtMs).toBeGreaterThanOrEqual(r.sentAtMs);
    }
  });
});

describe('a reused connection the server closes before answering', () => {
  it('both transports send the request once more on a new connection, and say so', async () => {
    // every connection's second request is read and closed unanswered, as a server that closes kept-alive
    // connections after one response without saying so (node's default keep-alive: connections are reused)
    const served = new Map<number, number>();
    const srv = await startLocalServer((req, res) => {
      const n = served.get(req.socket.remotePort!) ?? 0;
      served.set(req.socket.remotePort!, n + 1);
      if (n > 0) return void req.socket.destroy();
      sse(res);
      res.write(chatChunk({ content: 'a' }));
      res.end(finish + 'data: [DONE]\n\n');
    });
    try {
      for (const httpClient of ['lean', 'undici'] as const) {
        OriginPolicies.forgetAll(); // each transport learns the origin for itself
        const rs: RequestRecord[] = [];
        for (let i = 0; i < 4; i++)
          rs.push(
            await streamRequest({
              baseUrl: srv.baseUrl,
              api: 'chat',
              body: { model: 'm' },
              requestId: `${httpClient}-${i}`,
              httpClient,
              charsPerTokenEstimate: 1,
            }),
          );
        expect(rs.map((r) => r.ok)).toEqual([true, true, true, true]);
        // which request meets the close depends on when each transport reuses a socket; one does, and is
        // sent again; after it the origin is known, and no later request meets a close
        const resent = rs.flatMap((r, i) => (r.resent ? [i] : []));
        expect(resent).toHaveLength(1);
        expect(rs[resent[0]!]!.resent!.reason).toBe('other side closed');
        expect(rs[resent[0]!]!.resent!.firstSentAtMs).toBeLessThan(rs[resent[0]!]!.sentAtMs);
        const arrivals = srv.requests.map((q) => q.headers['x-request-id']);
        for (let i = 0; i < 4; i++)
          expect(arrivals.filter((id) => id === `${httpClient}-${i}`)).toHaveLength(i === resent[0] ? 2 : 1);
      }
    } finally {
      OriginPolicies.forgetAll();
      await srv.close();
    }
  });
});
