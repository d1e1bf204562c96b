import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

// Serves a recorded transcript (test/fixtures/engines/<engine>/routes.json) on 127.0.0.1:0 and records
// every request, so tests can assert what a probe asked (and that it never asked for a generation).
export interface RouteReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown; // object → JSON, string → as is
  bodyFile?: string; // relative to the fixture folder
  requiresKey?: boolean;
  unauthorized?: RouteReply; // the reply without a valid key
}

export interface FixtureServer {
  url: string;
  requests: Array<{ method: string; path: string; body: string; auth?: string }>;
  close(): Promise<void>;
}

const FIXTURES = fileURLToPath(new URL('../fixtures/engines/', import.meta.url));

export function loadRoutes(engine: string, file = 'routes.json'): Record<string, RouteReply> {
  return JSON.parse(readFileSync(`${FIXTURES}${engine}/${file}`, 'utf8')) as Record<string, RouteReply>;
}

export function fixtureText(engine: string, file: string): string {
  return readFileSync(`${FIXTURES}${engine}/${file}`, 'utf8');
}

export async function serveFixture(
  engine: string,
  opts: {
    routes?: Record<string, RouteReply>;
    apiKey?: string;
    patch?: Record<string, RouteReply | null>;
  } = {},
): Promise<FixtureServer> {
  const routes = { ...(opts.routes ?? loadRoutes(engine)) };
  for (const [k, v] of Object.entries(opts.patch ?? {})) {
    if (v === null) delete routes[k];
    else routes[k] = v;
  }
  const requests: FixtureServer['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      requests.push({ method: req.method ?? 'GET', path, body, auth: req.headers.authorization });
      let reply = routes[`${req.method} ${path}`];
      if (
        reply &&
        opts.apiKey &&
        reply.requiresKey &&
        req.headers.authorization !== `Bearer ${opts.apiKey}`
      ) {
        reply = reply.unauthorized ?? { status: 401, body: { error: 'Unauthorized' } };
      }
      if (!reply) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ detail: 'Not Found' }));
        return;
      }
      const text =
        reply.bodyFile !== undefined
          ? fixtureText(engine, reply.bodyFile)
          : typeof reply.body === 'string'
            ? reply.body
            : reply.body === undefined
              ? ''
              : JSON.stringify(reply.body);
      const ct =
        reply.bodyFile?.endsWith('.txt') || typeof reply.body === 'string'
          ? 'text/plain; version=0.0.4'
          : 'application/json';
      res.writeHead(reply.status ?? 200, { 'content-type': ct, ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// Paths that make a server generate: a probe must never ask for them.
export const GENERATING = [
  '/v1/chat/completions',
  '/v1/completions',
  '/health_generate',
  '/generate',
  '/api/generate',
  '/api/chat',
];
