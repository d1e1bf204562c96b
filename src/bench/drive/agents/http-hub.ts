import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BenchError } from '../../../errors.js';
import type { AgentHub, AgentPort } from './hub.js';
import { parseFromAgent, parseHello, type FromAgent } from './protocol.js';

// The coordinator's endpoint for its agents (docs/distributed.md "A cell over K agents"), plain HTTP/1.1 + JSON:
//   POST /agents/join  {hello}   -> 200 and a long response of JSON lines (the coordinator's messages), held open;
//                                   x-agent-session names this connection in the agent's later requests
//   POST /agents/send  {messages} -> 204 (records, first tokens, errors, heartbeats)
//   POST /agents/time            -> {t1, t2}: the coordinator's clock when the request arrived and when it answered
// Every request must carry `authorization: Bearer <run token>`; anything else gets 401 and nothing more. A
// connection that closes is an agent gone (hub.gone): its process died or the network did.

export const TOKEN_ENV = 'LLM_BENCH_AGENT_TOKEN';
const MAX_HELLO_BYTES = 64 * 1024;
const MAX_SEND_BYTES = 512 * 1024 * 1024; // one batch of records with their chunk stamps

export interface AgentServer {
  url: string; // where the agents reach it (the bound address)
  port: number;
  close(): Promise<void>;
}

// Where agent 0 listens for --coordinator URL: an IP literal or localhost as given (127.0.0.1 in tests), a host
// name on every interface (in a cluster the name is this pod's or node's own, resolved by the others).
export function listenAddress(url: string): { host: string; port: number } {
  const u = new URL(url);
  const name = u.hostname.replace(/^\[|\]$/g, '');
  const literal = /^[\d.]+$/.test(name) || name.includes(':');
  const host = name === 'localhost' ? '127.0.0.1' : literal ? name : '0.0.0.0';
  const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
  return { host, port };
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export async function serveAgents(
  hub: AgentHub,
  o: { host: string; port: number; token: string },
): Promise<AgentServer> {
  if (!o.token) throw new BenchError('USAGE', 'the agents endpoint needs a run token.');
  const want = digest(o.token);
  const sessions: Sessions = new Map();
  const authorized = (req: IncomingMessage) => {
    const h = req.headers.authorization ?? '';
    const given = h.startsWith('Bearer ') ? h.slice(7) : '';
    return timingSafeEqual(digest(given), want);
  };

  const server = createServer((req, res) => {
    const t1 = hub.clock.now(); // the time request's arrival, before anything else
    if (req.method !== 'POST') return answer(res, 405, { error: 'POST only' });
    if (!authorized(req)) {
      req.resume();
      return answer(res, 401, { error: 'this endpoint takes only agents holding the run token' });
    }
    if (req.url === '/agents/time') {
      req.resume();
      return answer(res, 200, { t1, t2: hub.clock.now() });
    }
    if (req.url === '/agents/join') return void join(hub, sessions, req, res);
    if (req.url === '/agents/send') return void send(hub, sessions, req, res);
    req.resume();
    answer(res, 404, { error: 'not found' });
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0; // a join response lasts the whole run
  server.headersTimeout = 60_000;
  await listen(server, o);
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shown}:${addr.port}`,
    port: addr.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions.values()) s.port.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// The agents' open sessions, by the id their join got (x-agent-session).
type Sessions = Map<string, { index: number; port: AgentPort }>;

// A joining agent: its hello checked and taken by the hub, then a long response of its messages as JSON lines.
async function join(
  hub: AgentHub,
  sessions: Sessions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req, MAX_HELLO_BYTES).catch((e: Error) => e);
  if (body instanceof Error) return answer(res, 400, { error: body.message });
  const hello = parseHello(body);
  if (!hello.ok) return answer(res, 400, { error: `hello: ${hello.error}` });
  const id = randomBytes(12).toString('hex');
  let open = true;
  let pending: string[] | undefined = []; // what the hub sends while it takes the agent, before the head
  const port: AgentPort = {
    send: (m) => {
      if (!open) return;
      const line = JSON.stringify(m) + '\n';
      if (pending) pending.push(line);
      else res.write(line);
    },
    close: () => {
      if (!open) return;
      open = false;
      sessions.delete(id);
      res.end();
    },
  };
  const joined = hub.join(hello.value, port);
  if (!joined.ok) {
    open = false;
    return answer(res, joined.status, { error: joined.message });
  }
  res.writeHead(200, {
    'content-type': 'application/x-ndjson',
    'cache-control': 'no-store',
    'x-agent-session': id,
  });
  for (const line of pending) res.write(line);
  pending = undefined;
  sessions.set(id, { index: hello.value.index, port });
  res.socket?.setNoDelay(true);
  res.on('close', () => {
    if (!open) return;
    open = false;
    sessions.delete(id);
    hub.gone(hello.value.index, port, 'closed its connection (its process ended, or the network)');
  });
}

// An agent's batch of messages, on the session its join opened.
async function send(
  hub: AgentHub,
  sessions: Sessions,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const session = sessions.get(String(req.headers['x-agent-session'] ?? ''));
  const body = await readJson(req, MAX_SEND_BYTES).catch((e: Error) => e);
  if (!session) return answer(res, 410, { error: 'no such agent session: join again' });
  if (body instanceof Error) return answer(res, 400, { error: body.message });
  const list = (body as { messages?: unknown }).messages;
  if (!Array.isArray(list)) return answer(res, 400, { error: 'messages: expected an array' });
  const messages: FromAgent[] = [];
  for (const [i, m] of list.entries()) {
    const p = parseFromAgent(m);
    if (!p.ok) return answer(res, 400, { error: `messages.${i}.${p.error}` });
    messages.push(p.value);
  }
  if (!hub.receive(session.index, session.port, messages))
    return answer(res, 410, { error: 'the coordinator dropped this agent: join again' });
  res.writeHead(204).end();
}

function listen(server: Server, o: { host: string; port: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new BenchError('USAGE', `cannot listen for agents on ${o.host}:${o.port} (${e.code ?? e.message}).`, {
          hint: 'Give --coordinator a port that is free on agent 0.',
        }),
      ),
    );
    server.listen(o.port, o.host, () => resolve());
  });
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > limit) {
        reject(new Error(`body over ${limit} bytes`));
        req.destroy();
        return;
      }
      parts.push(b);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch {
        reject(new Error('body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}
