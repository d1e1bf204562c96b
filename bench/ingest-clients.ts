// HTTP stacks compared by bench:ingest. All but the fetch baseline feed the same StreamSession, so the
// difference between them is the transport alone. "ours" is streamRequest with its default, lean HTTP/1.1
// client; "ours (undici)" the same over undici's dispatch.
import http from 'node:http';
import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { nowMs } from '../src/clock.js';
import { streamRequest } from '../src/client/stream.js';
import { StreamSession } from '../src/client/decode/stream-session.js';
import { rawNetFloor } from './ingest-floor.js';

export interface ClientCall {
  baseUrl: string;
  api: 'chat' | 'completions';
  body: Record<string, unknown>;
  requestId: string;
  signal: AbortSignal;
}
export interface ClientResult {
  chunks: Array<[number, number]>;
  sentAtMs?: number; // the request's write, where the client stamps it (0 or absent: not stamped)
}
export type Client = (c: ClientCall) => Promise<ClientResult>;

const path = (c: ClientCall) =>
  new URL(c.baseUrl).pathname + (c.api === 'chat' ? '/chat/completions' : '/completions');
const headers = (c: ClientCall) => ({ 'content-type': 'application/json', 'x-request-id': c.requestId });

export const ourClient: Client = (c) => streamRequest({ ...c, timeouts: { idleMs: 600_000 } });

// The same streamRequest over undici's dispatch (--http-client undici; what https:// targets take).
export const ourUndiciClient: Client = (c) =>
  streamRequest({ ...c, httpClient: 'undici', timeouts: { idleMs: 600_000 } });

export const ourClientNoFastPath: Client = (c) =>
  streamRequest({ ...c, fastPath: false, timeouts: { idleMs: 600_000 } });

const httpAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
export const nodeHttpClient: Client = (c) =>
  new Promise((resolve) => {
    const s = new StreamSession();
    const u = new URL(c.baseUrl);
    let done = false;
    let sentAtMs = 0;
    const finish = () => {
      if (done) return;
      done = true;
      void s.record(sentAtMs, nowMs()).then(resolve);
    };
    const req = http.request(
      {
        agent: httpAgent,
        host: u.hostname,
        port: u.port,
        path: path(c),
        method: 'POST',
        headers: headers(c),
      },
      (res) => {
        s.headers(res.statusCode ?? 0, res.headers['content-type'], nowMs());
        res.on('data', (d: Buffer) => s.data(d, nowMs()));
        res.on('end', () => {
          s.end(nowMs());
          finish();
        });
        res.on('error', finish);
      },
    );
    req.on('error', finish);
    // 'socket' is emitted right before the buffered request is flushed to it (a kept-alive socket's write).
    req.once('socket', () => (sentAtMs = nowMs()));
    setMaxListeners(0, c.signal);
    c.signal.addEventListener('abort', () => {
      req.destroy();
      finish();
    });
    req.end(JSON.stringify({ ...c.body, stream: true }));
  });

const undiciAgent = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
export const undiciRequestClient: Client = async (c) => {
  const s = new StreamSession();
  try {
    const res = await request(new URL(path(c), c.baseUrl).toString(), {
      method: 'POST',
      headers: headers(c),
      body: JSON.stringify({ ...c.body, stream: true }),
      dispatcher: undiciAgent,
      signal: c.signal,
    });
    s.headers(res.statusCode, String(res.headers['content-type']), nowMs());
    for await (const d of res.body) s.data(d as Buffer, nowMs());
    s.end(nowMs());
  } catch {
    // aborted at the window close
  }
  return s.record(0, nowMs());
};

// The common naive client: fetch, TextDecoder, split lines, JSON.parse every event.
export const fetchClient: Client = async (c) => {
  const chunks: Array<[number, number]> = [];
  try {
    const res = await fetch(new URL(path(c), c.baseUrl), {
      method: 'POST',
      headers: headers(c),
      body: JSON.stringify({ ...c.body, stream: true }),
      signal: c.signal,
    });
    const dec = new TextDecoder();
    let buf = '';
    for await (const d of res.body as unknown as AsyncIterable<Uint8Array>) {
      const t = nowMs();
      buf += dec.decode(d, { stream: true });
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
        const o = JSON.parse(line.slice(6)) as {
          choices: Array<{ delta?: { content?: string }; text?: string }>;
        };
        const ch = o.choices[0];
        if (ch && (ch.delta?.content || ch.text)) chunks.push([t, 1]);
      }
    }
  } catch {
    // aborted at the window close
  }
  return { chunks };
};

export const CLIENTS: Record<string, Client> = {
  'raw node:net floor': rawNetFloor,
  ours: ourClient,
  'ours (undici)': ourUndiciClient,
  'ours, no fast path': ourClientNoFastPath,
  'node:http + session': nodeHttpClient,
  'undici request() + session': undiciRequestClient,
  'fetch + JSON.parse': fetchClient,
};
