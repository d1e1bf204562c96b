// SSE emitter for bench:ingest, run as a child process so it never shares the client's event loop.
// Raw node:net HTTP/1.1 (chunked) keeps the emitter cheap. All active streams get their tokens on one
// global tick, like an engine step. Each token event's write time (epoch ms, performance.timeOrigin +
// now) is logged per request id and handed to the parent over IPC, with the time each request's bytes were
// first read (its arrival: the send-stamp check of bench:ingest).
import net from 'node:net';
import {
  ENGINES,
  closingEvents,
  roleEvent,
  tokenEvent,
  type Engine,
  type ShapeStream,
} from './ingest-shapes.js';

const nowMs = () => performance.timeOrigin + performance.now();

interface Stream {
  sock: net.Socket;
  id: string;
  shape: ShapeStream;
  maxTokens: number;
  tokensPerChunk: number;
  reasoningTokens: number; // the first tokens go to the engine's reasoning field
  sent: number;
  writes: number[];
}

const active = new Set<Stream>();
const finishedWrites = new Map<string, number[]>();
const arrivals = new Map<string, number>(); // request id -> the read that brought its first bytes
let intervalMs = 10;
let ticking = false;
let t0 = 0;
let k = 0;
let lateMs: number[] = []; // how late each tick fired vs its schedule (emitter-side share of any delay)
const WORDS = [' the', ' cat', ' sat', ' on', ' a', ' warm', ' mat', ' and', ' slept', ' well'];

function frame(payload: string): string {
  return `${Buffer.byteLength(payload).toString(16)}\r\n${payload}\r\n`;
}

function tick(): void {
  const t = nowMs();
  for (const s of active) {
    const n = Math.min(s.tokensPerChunk, s.maxTokens - s.sent);
    let text = '';
    for (let i = 0; i < n; i++) text += WORDS[(s.sent + i) % WORDS.length];
    s.sent += n;
    const last = s.sent >= s.maxTokens;
    const reasoning = s.sent <= s.reasoningTokens;
    let out = frame(tokenEvent(s.shape, text, reasoning, s.sent, last ? 'length' : undefined));
    if (last) {
      out += frame(closingEvents(s.shape, s.sent)) + '0\r\n\r\n';
      active.delete(s);
      finishedWrites.set(s.id, s.writes);
    }
    s.writes.push(nowMs());
    s.sock.write(out);
  }
  const scheduled = t0 + k * intervalMs;
  k++;
  if (active.size === 0) {
    ticking = false;
    return;
  }
  // Absolute schedule: a late tick does not push every later one back; but a tick later than a few
  // intervals restarts the schedule instead of firing a burst of catch-up ticks.
  let next = t0 + k * intervalMs;
  const now = nowMs();
  lateMs.push(Math.max(0, t - scheduled));
  if (now - next > 3 * intervalMs) {
    t0 = now + intervalMs;
    k = 0;
    next = t0;
  }
  setTimeout(tick, Math.max(0, next - now));
}

// The bench's knobs ride in the base URL (/b/<engine>/<interval ms>/<tokens per chunk>/<reasoning tokens>/v1)
// so every client sends the runner's real request body unchanged; the body says whether continuous usage
// was asked for, and the output cap (max_tokens, TGI's max_new_tokens and the like).
function startStream(
  sock: net.Socket,
  path: string,
  headers: Map<string, string>,
  body: string,
  arrivedAt: number,
): void {
  const req = JSON.parse(body) as Record<string, unknown>;
  const api = path.endsWith('/chat/completions') ? 'chat' : 'completions';
  const id = headers.get('x-request-id') ?? `anon-${Math.random()}`;
  arrivals.set(id, arrivedAt);
  const [, b, engineArg, interval, tpc, reasoning] = path.split('/');
  const engine: Engine = b === 'b' && ENGINES.includes(engineArg as Engine) ? (engineArg as Engine) : 'vllm';
  intervalMs = Number(interval) || 10;
  const so = req.stream_options as { continuous_usage_stats?: boolean } | undefined;
  const cap = Number(req.max_tokens ?? req.max_completion_tokens ?? req.max_new_tokens ?? 512);
  const s: Stream = {
    sock,
    id,
    shape: { engine, api, id, continuous: so?.continuous_usage_stats === true },
    maxTokens: cap,
    tokensPerChunk: Number(tpc) || 1,
    reasoningTokens: Number(reasoning) || 0,
    sent: 0,
    writes: [],
  };
  let out =
    'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n';
  const role = roleEvent(s.shape);
  if (role) out += frame(role);
  sock.write(out);
  active.add(s);
  (sock as net.Socket & { streams?: Set<Stream> }).streams?.add(s);
  if (!ticking) {
    ticking = true;
    t0 = nowMs() + intervalMs;
    k = 0;
    setTimeout(tick, intervalMs);
  }
}

const server = net.createServer((sock) => {
  sock.setNoDelay(true);
  const mine = new Set<Stream>();
  (sock as net.Socket & { streams?: Set<Stream> }).streams = mine;
  let buf: Buffer = Buffer.alloc(0);
  let firstReadAt = 0; // the read that brought the first bytes of the request now in `buf`
  sock.on('data', (d: Buffer) => {
    const at = nowMs();
    if (buf.length === 0) firstReadAt = at;
    buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Map<string, string>();
      for (const l of lines.slice(1)) {
        const c = l.indexOf(':');
        if (c > 0) headers.set(l.slice(0, c).trim().toLowerCase(), l.slice(c + 1).trim());
      }
      const len = Number(headers.get('content-length') ?? 0);
      if (buf.length < end + 4 + len) return;
      const body = buf.subarray(end + 4, end + 4 + len).toString('utf8');
      buf = buf.subarray(end + 4 + len);
      const path = (lines[0] ?? '').split(' ')[1] ?? '/';
      startStream(sock, path, headers, body, firstReadAt);
      firstReadAt = at; // bytes left in `buf` belong to the next request, read now
    }
  });
  const drop = () => {
    for (const s of mine) {
      if (active.delete(s)) finishedWrites.set(s.id, s.writes);
    }
  };
  sock.on('close', drop);
  sock.on('error', drop);
});

server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as net.AddressInfo;
  process.send?.({ type: 'ready', port: addr.port });
});

// Never outlive the parent (it may exit before 'exit' arrives).
process.on('disconnect', () => process.exit(0));
let cpuMark = process.cpuUsage();
process.on('message', (m: { type: string }) => {
  if (m.type === 'collect') {
    for (const s of active) finishedWrites.set(s.id, s.writes);
    const writes = Object.fromEntries(finishedWrites);
    finishedWrites.clear();
    const arrived = Object.fromEntries(arrivals);
    arrivals.clear();
    process.send?.({ type: 'writes', writes, arrivals: arrived });
  } else if (m.type === 'cpu-mark') {
    cpuMark = process.cpuUsage();
    lateMs = [];
    process.send?.({ type: 'cpu-marked' });
  } else if (m.type === 'cpu') {
    const d = process.cpuUsage(cpuMark);
    const late = [...lateMs].sort((a, b) => a - b);
    const q = (f: number) =>
      late.length ? late[Math.min(late.length - 1, Math.floor(f * late.length))] : null;
    process.send?.({
      type: 'cpu',
      ms: (d.user + d.system) / 1000,
      tickLateP50Ms: q(0.5),
      tickLateP99Ms: q(0.99),
    });
  } else if (m.type === 'exit') {
    server.close();
    process.exit(0);
  }
});
