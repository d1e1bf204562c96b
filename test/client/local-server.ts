// A tiny node:http server on 127.0.0.1:0 whose behaviour each test scripts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: string,
) => void | Promise<void>;

export interface LocalServer {
  baseUrl: string; // .../v1
  url: string;
  requests: Array<{ url: string; headers: http.IncomingHttpHeaders; body: string; remotePort?: number }>;
  close(): Promise<void>;
}

export async function startLocalServer(
  route: Route,
  opts: { keepAliveTimeoutMs?: number } = {},
): Promise<LocalServer> {
  const requests: LocalServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body, remotePort: req.socket.remotePort });
      void route(req, res, body);
    });
  });
  if (opts.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function sse(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}

export function chatChunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
}
