import { afterEach, describe, expect, it } from 'vitest';
import dc from 'node:diagnostics_channel';
import { Agent } from 'undici';
import { streamRequest } from '../../src/client/stream.js';
import { chatChunk, sse, startLocalServer, type LocalServer } from './local-server.js';

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// A counter clock orders every stamp: a send time taken at the call would have every other request's call
// between it and its write; one taken at the write has nothing of another request in between.
describe('send time is the write, not the call', () => {
  it('stamps sentAtMs when undici writes the bytes, keeps calledAtMs, on fresh and reused sockets', async () => {
    server = await startLocalServer((_req, res) => {
      sse(res);
      res.write(chatChunk({ content: 'hi' }));
      res.end(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
      );
    });
    let tick = 0;
    const now = () => ++tick;
    const written = new Map<string, number>();
    const onWrite = (m: unknown) => {
      const id = /x-request-id: (\S+)/.exec((m as { headers: string }).headers)?.[1];
      if (id) written.set(id, now());
    };
    dc.subscribe('undici:client:sendHeaders', onWrite);
    const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
    try {
      const N = 16;
      const round = (r: number) =>
        Promise.all(
          Array.from({ length: N }, (_, i) =>
            streamRequest({
              baseUrl: server!.baseUrl,
              api: 'chat',
              body: { model: 'm' },
              requestId: `r${r}-${i}`,
              now,
              dispatcher,
            }),
          ),
        );
      const recs = [...(await round(1)), ...(await round(2))]; // round 2 reuses the keep-alive sockets
      const ids = [1, 2].flatMap((r) => Array.from({ length: N }, (_, i) => `r${r}-${i}`));
      const stamps = recs.flatMap((x) => [
        x.calledAtMs!,
        x.sentAtMs,
        x.endAtMs,
        ...x.chunks.map((c) => c[0]),
      ]);
      for (let k = 0; k < recs.length; k++) {
        const rec = recs[k]!;
        const w = written.get(ids[k]!)!;
        expect(rec.ok).toBe(true);
        expect(rec.calledAtMs).toBeLessThan(rec.sentAtMs);
        expect(rec.sentAtMs).toBeLessThan(w);
        const own = new Set([rec.calledAtMs, rec.sentAtMs, rec.endAtMs, ...rec.chunks.map((c) => c[0])]);
        const between = stamps.filter((t) => t > rec.sentAtMs && t < w && !own.has(t));
        expect(between).toEqual([]);
        expect(rec.firstTokenAtMs! - rec.sentAtMs).toBeGreaterThan(0);
      }
      // the deferral is real: later calls of the same round were made before earlier requests were written
      const r2 = recs.slice(N);
      expect(r2.filter((x) => x.sentAtMs > r2[N - 1]!.calledAtMs!).length).toBe(N);
    } finally {
      dc.unsubscribe('undici:client:sendHeaders', onWrite);
      await dispatcher.close();
    }
  });

  it('a request that is never written keeps sentAtMs = calledAtMs', async () => {
    const r = await streamRequest({
      baseUrl: 'http://127.0.0.1:1/v1',
      api: 'chat',
      body: { model: 'm' },
      timeouts: { connectMs: 2000 },
    });
    expect(r.ok).toBe(false);
    expect(r.sentAtMs).toBe(r.calledAtMs);
  });
});
