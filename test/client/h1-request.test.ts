// The lean HTTP/1.1 client against a raw node:net server that scripts each connection's answers byte by byte:
// the rule for connections the server closes (one re-send, only of a request that got no byte on a reused
// connection; origins that close right after a response learned), keep-alive reuse, one write per request,
// the send stamp at that write, and no listeners left behind.
import { afterEach, describe, expect, it } from 'vitest';
import net from 'node:net';
import { getEventListeners } from 'node:events';
import { streamRequest } from '../../src/client/stream.js';
import { h1Pool } from '../../src/client/transport/h1-pool.js';
import { NO_REUSE_BELOW_MS, OriginPolicies } from '../../src/client/transport/origin-policy.js';

const SSE_OK =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n' +
  chunk(
    `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] })}\n\n`,
  ) +
  chunk(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`) +
  chunk('data: [DONE]\n\n') +
  '0\r\n\r\n';
function chunk(s: string): string {
  return `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
}

/** What the server does with the n-th request (0-based) of its c-th connection (0-based). */
type Script = (sock: net.Socket, conn: number, n: number, raw: string) => void;

interface RawServer {
  baseUrl: string;
  port: number;
  requests: Array<{ conn: number; n: number; raw: string }>;
  connections: number;
  close(): Promise<void>;
}

let srv: RawServer | undefined;
afterEach(async () => {
  h1Pool.close();
  OriginPolicies.forgetAll();
  await srv?.close();
  srv = undefined;
});

async function rawServer(script: Script): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  const out: RawServer = { baseUrl: '', port: 0, requests: [], connections: 0, close: async () => undefined };
  const server = net.createServer((sock) => {
    const conn = out.connections++;
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    let buf = '';
    let n = 0;
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      // one request = head + content-length body
      for (;;) {
        const h = buf.indexOf('\r\n\r\n');
        if (h === -1) return;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, h))?.[1] ?? 0);
        if (buf.length < h + 4 + len) return;
        const raw = buf.slice(0, h + 4 + len);
        buf = buf.slice(h + 4 + len);
        out.requests.push({ conn, n, raw });
        script(sock, conn, n++, raw);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  out.port = (server.address() as net.AddressInfo).port;
  out.baseUrl = `http://127.0.0.1:${out.port}/v1`;
  out.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return out;
}

const send = (extra: Partial<Parameters<typeof streamRequest>[0]> = {}) =>
  streamRequest({ baseUrl: srv!.baseUrl, api: 'chat', body: { model: 'm' }, ...extra });

describe('lean HTTP/1.1 client', () => {
  // A server that died mid-run once left "connection failed: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:N" in
  // the result: the address and the refusal in words, as the probe says it.
  it('words a refused connection with its address, the code not repeated', async () => {
    srv = await rawServer((sock) => sock.write(SSE_OK));
    const { baseUrl, port } = srv;
    await srv.close();
    srv = undefined;
    const r = await streamRequest({ baseUrl, api: 'chat', body: { model: 'm' } });
    expect(r.error).toEqual({
      kind: 'connect',
      message: `connection failed: 127.0.0.1:${port}: nothing is listening there (connection refused)`,
    });
  });

  it('keeps one connection alive across requests, writes each request once, leaves no listeners behind', async () => {
    srv = await rawServer((sock) => sock.write(SSE_OK));
    const ac = new AbortController(); // one signal shared by every request, as a cell's slots share one
    const first = await send({ signal: ac.signal });
    expect(first.ok).toBe(true);
    const [conn] = h1Pool.idle('127.0.0.1', srv.port);
    const events = ['data', 'end', 'error', 'close', 'connect', 'timeout', 'drain'];
    const listeners = () => events.map((ev) => conn!.socket.listenerCount(ev));
    const before = listeners();
    const writes: string[] = [];
    const write = conn!.socket.write.bind(conn!.socket);
    conn!.socket.write = ((d: string) => {
      writes.push(d);
      return write(d);
    }) as net.Socket['write'];
    for (let i = 0; i < 5; i++) {
      const r = await send({ signal: ac.signal, requestId: `r${i}`, apiKey: 'sk-1' });
      expect(r).toMatchObject({ ok: true, outputTokens: 1, finishReason: 'stop' });
    }
    expect(srv.connections).toBe(1);
    expect(writes).toHaveLength(5);
    const body = JSON.stringify({ model: 'm', stream: true });
    expect(writes[0]).toBe(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:' +
        `${srv.port}\r\ncontent-type: application/json\r\naccept: text/event-stream\r\naccept-encoding: identity\r\n` +
        `authorization: Bearer sk-1\r\nx-request-id: r0\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    expect(listeners()).toEqual(before);
    // an idle connection does not keep the process alive (the CLI exits with connections still pooled)
    const handle = (conn!.socket as unknown as { _handle?: { hasRef(): boolean } })._handle;
    expect(handle?.hasRef()).toBe(false);
    expect(before[0]).toBe(1); // 'data': ours alone, set when the connection opened
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    expect(h1Pool.idle('127.0.0.1', srv.port)).toHaveLength(1);
  });

  it('sends a request once more, on a new connection, when its reused connection closed before any answer', async () => {
    // llama-server's pattern: the connection ends with a FIN right after a response, without Connection: close;
    // a request written in that gap gets no byte (here the server reads it and closes, the worst case)
    srv = await rawServer((sock, _c, n) => (n === 0 ? sock.write(SSE_OK) : sock.destroy()));
    expect((await send()).ok).toBe(true);
    const r = await send({ requestId: 'again' });
    expect(r).toMatchObject({ ok: true, outputTokens: 1 });
    expect(r.resent?.reason).toBe('other side closed');
    expect(r.resent!.firstSentAtMs).toBeLessThan(r.sentAtMs); // TTFT from the second write
    expect(r.firstTokenAtMs!).toBeGreaterThan(r.sentAtMs);
    expect(srv.requests.map((q) => [q.conn, q.n])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(srv.requests[2]!.raw).toContain('x-request-id: again');
    // a close that soon after a response is learned: this origin's connections carry one request each now
    expect(h1Pool.policy(`127.0.0.1:${srv.port}`).reuse).toBe(false);
    for (let i = 0; i < 3; i++) expect((await send()).resent).toBeUndefined();
    expect(srv.requests.slice(3).map((q) => q.n)).toEqual([0, 0, 0]);
    expect(h1Pool.idle('127.0.0.1', srv.port)).toHaveLength(0);
  });

  it('sends once more after a reset of a reused connection too, and never a third time', async () => {
    // a reset is what a server sends for bytes it never read; the re-send's fresh connection is refused too
    srv = await rawServer((sock, conn, n) =>
      conn === 0 && n === 0 ? sock.write(SSE_OK) : conn === 0 ? sock.resetAndDestroy() : sock.destroy(),
    );
    expect((await send()).ok).toBe(true);
    const r = await send({ requestId: 'twice' });
    expect(r.error).toEqual({ kind: 'connect', message: 'connection failed: other side closed' });
    expect(r.resent?.reason).toBe('the connection was reset before an answer (read ECONNRESET)');
    expect(srv.requests.map((q) => [q.conn, q.n])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
  });

  it("never twice: a reset after a response byte, or on a fresh connection (as a re-send's is), fails", async () => {
    srv = await rawServer((sock, conn, n) => {
      if (conn === 0 && n === 0) sock.write(SSE_OK);
      else if (conn === 0)
        sock.write('HTTP/1.1 200 OK\r\n', () => setTimeout(() => sock.resetAndDestroy(), 20));
      else sock.resetAndDestroy();
    });
    expect((await send()).ok).toBe(true);
    const afterByte = await send();
    expect(afterByte.error).toEqual({
      kind: 'connect',
      message: 'connection failed: the connection was reset before an answer (read ECONNRESET)',
    });
    const fresh = await send();
    expect(fresh.error?.message).toMatch(/^connection failed: the connection was reset before an answer/);
    expect(srv.requests).toHaveLength(3);
    expect([afterByte.resent, fresh.resent]).toEqual([undefined, undefined]);
  });

  it('a close after part of the head, or on a fresh connection, is a connect failure too', async () => {
    srv = await rawServer((sock, conn) => {
      if (conn === 0) sock.end('HTTP/1.1 200 OK\r\n');
      else sock.destroy();
    });
    for (let i = 0; i < 2; i++)
      expect((await send()).error).toEqual({
        kind: 'connect',
        message: 'connection failed: other side closed',
      });
    expect(srv.requests).toHaveLength(2);
  });

  it('honours Keep-Alive: max=N (N requests on a connection, then a new one)', async () => {
    // cpp-httplib says max=5 on every response and closes after the 5th
    srv = await rawServer((sock) =>
      sock.write(SSE_OK.replace('\r\n\r\n', '\r\nkeep-alive: timeout=5, max=2\r\n\r\n')),
    );
    for (let i = 0; i < 5; i++) expect((await send()).ok).toBe(true);
    expect(srv.requests.map((q) => [q.conn, q.n])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
  });

  it('learns how soon after a response the server closes idle connections, and keeps them half as long', async () => {
    const closeAfterMs = NO_REUSE_BELOW_MS + 300; // from the server's write; the client's clock starts at its read
    srv = await rawServer((sock) => sock.write(SSE_OK, () => setTimeout(() => sock.end(), closeAfterMs)));
    const policy = () => h1Pool.policy(`127.0.0.1:${srv!.port}`);
    expect((await send()).ok).toBe(true);
    expect(policy().keepMs()).toBe(4000);
    await new Promise((r) => setTimeout(r, closeAfterMs + 150));
    expect(h1Pool.idle('127.0.0.1', srv.port)).toHaveLength(0); // dropped at the server's close
    const seen = policy().closeAfterResponseMs;
    expect(seen).toBeGreaterThan(closeAfterMs - 150);
    expect(policy().reuse).toBe(true);
    expect(policy().keepMs()).toBe(seen / 2);
  });

  it("keeps a connection no longer than the server's announced keep-alive time, less a second", async () => {
    srv = await rawServer((sock) =>
      sock.write(SSE_OK.replace('\r\n\r\n', '\r\nkeep-alive: timeout=1\r\n\r\n')),
    );
    expect((await send()).ok).toBe(true);
    expect(h1Pool.idle('127.0.0.1', srv.port)).toHaveLength(0);
    expect((await send()).ok).toBe(true);
    expect(srv.connections).toBe(2);
  });

  it('a response with Connection: close, or one followed by stray bytes, does not leave its connection for reuse', async () => {
    srv = await rawServer((sock, conn) => {
      if (conn === 0)
        sock.write('HTTP/1.1 429 Too Many Requests\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}');
      else sock.write(SSE_OK + 'HTTP/1.1 200 OK\r\n');
    });
    const r = await send();
    expect(r.error).toMatchObject({ kind: 'http_status', status: 429 });
    expect((await send()).ok).toBe(true);
    expect((await send()).ok).toBe(true);
    expect(srv.connections).toBe(3);
    expect(h1Pool.idle('127.0.0.1', srv.port)).toHaveLength(0);
  });

  it('reads a body delimited by the close (HTTP/1.0 style) and reports bytes that are not HTTP', async () => {
    srv = await rawServer((sock, conn) => {
      if (conn === 0)
        sock.end(SSE_OK.replace('transfer-encoding: chunked', 'x: 1').replace(/\r\n[0-9a-f]+\r\n/g, '\r\n'));
      else sock.end('SSH-2.0-OpenSSH_9.6\r\n\r\n');
    });
    const close = await send({ charsPerTokenEstimate: 1 });
    expect(close).toMatchObject({ ok: true, finishReason: 'stop' });
    const bad = await send();
    expect(bad.error?.kind).toBe('connect');
    expect(bad.error?.message).toMatch(/^connection failed: invalid HTTP response: invalid status line/);
  });

  it('stamps sentAtMs at the write: on a reused connection nothing else happens between the call and it', async () => {
    srv = await rawServer((sock) => sock.write(SSE_OK));
    let tick = 0;
    const now = () => ++tick;
    const first = await send({ now });
    expect(first.sentAtMs).toBeGreaterThan(first.calledAtMs!); // fresh: the connect came between
    const [conn] = h1Pool.idle('127.0.0.1', srv.port);
    let writtenAt = 0;
    const write = conn!.socket.write.bind(conn!.socket);
    conn!.socket.write = ((d: string) => {
      writtenAt = now();
      return write(d);
    }) as net.Socket['write'];
    const r = await send({ now });
    expect(r.ok).toBe(true);
    expect(r.sentAtMs).toBe(r.calledAtMs! + 1);
    expect(writtenAt).toBeGreaterThan(r.sentAtMs);
    expect(writtenAt - r.sentAtMs).toBeLessThanOrEqual(2); // only the timer re-arm's clock read between
    expect(r.firstTokenAtMs!).toBeGreaterThan(writtenAt);
  });

  it('a server that closes right after its answer without saying so: every next request goes to a new connection', async () => {
    // keep-alive implied by HTTP/1.1, then a close: the FIN is right behind the response, and a request written
    // at once would land on a dying connection and fail (undici waits a loop cycle too)
    const body = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';
    srv = await rawServer((sock) =>
      sock.end(
        `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      ),
    );
    for (let i = 0; i < 20; i++) expect((await send({ requestId: `r${i}` })).error).toBeUndefined();
    expect(srv.requests.map((q) => q.n)).toEqual(Array(20).fill(0)); // each on its own connection, sent once
  });

  it('a body the server answered before reading (413) is not followed on that connection by the next request', async () => {
    // answered from the first bytes, as nginx does with a too-large body, and closed a little later
    const early = net.createServer((sock) => {
      sock.on('error', () => undefined);
      let answered = false;
      sock.on('data', (d) => {
        if (answered) return;
        answered = true;
        if (/content-length: (\d{7,})/.exec(d.toString('latin1'))) {
          sock.write('HTTP/1.1 413 Payload Too Large\r\ncontent-length: 0\r\n\r\n');
          setTimeout(() => sock.destroy(), 300);
        } else sock.write(SSE_OK);
      });
    });
    await new Promise<void>((r) => early.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(early.address() as net.AddressInfo).port}/v1`;
    try {
      const big = await streamRequest({
        baseUrl,
        api: 'chat',
        body: { model: 'm', prompt: 'x'.repeat(20e6) },
      });
      expect(big.error).toMatchObject({ kind: 'http_status', status: 413 });
      const next = await streamRequest({ baseUrl, api: 'chat', body: { model: 'm' } });
      expect(next.error).toBeUndefined();
      expect(next.outputTokens).toBe(1);
    } finally {
      h1Pool.close();
      await new Promise<void>((r) => early.close(() => r()));
    }
  });

  it('aborting destroys the connection and keeps what arrived', async () => {
    srv = await rawServer((sock) =>
      sock.write(SSE_OK.slice(0, SSE_OK.indexOf('data: {"choices":[{"index":0,"delta":{}'))),
    );
    const ac = new AbortController();
    const p = send({ signal: ac.signal, charsPerTokenEstimate: 1 });
    await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    const r = await p;
    expect(r.error?.kind).toBe('aborted');
    expect(r.chunks).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(srv.connections).toBe(1);
    expect(h1Pool.idle('127.0.0.1', srv.port)).toHaveLength(0);
  });
});
