import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HTTP_CLIENTS, streamRequest } from '../../src/client/stream.js';

// The stream is never asked for compressed (docs/method.md "Streams held back"): a compressing proxy holds what it
// may compress. Read off the wire, as a server sees it, for both transports (undici's own request path included).
let server: net.Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
});

const ANSWER =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n' +
  [
    'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n',
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
  ]
    .map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`)
    .join('') +
  '0\r\n\r\n';

async function heads(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  server = net.createServer((s) => {
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)/i.exec(buf)?.[1];
      if (end < 0 || len === undefined || buf.length < end + 4 + Number(len)) return;
      seen.push(buf.slice(0, end));
      buf = '';
      s.write(ANSWER);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server!.address() as net.AddressInfo).port}/v1`, seen };
}

describe('no compressed stream is asked for', () => {
  it.each(HTTP_CLIENTS)(
    '%s: the request says accept-encoding: identity and names no coding',
    async (httpClient) => {
      const { url, seen } = await heads();
      const rec = await streamRequest({ baseUrl: url, api: 'chat', body: { model: 'm' }, httpClient });
      expect(rec.ok).toBe(true);
      expect(rec.outputTokens).toBe(1);
      expect(seen).toHaveLength(1);
      const lines = seen[0]!.toLowerCase().split('\r\n');
      expect(lines.filter((l) => l.startsWith('accept-encoding:'))).toEqual(['accept-encoding: identity']);
      expect(seen[0]!.toLowerCase()).not.toMatch(/gzip|deflate|\bbr\b|zstd|compress/);
    },
  );
});
