// streamRequest: one streamed chat/completions request -> one timed RequestRecord (never rejects).
// Transport: undici's low-level `dispatch` with our own handler (chosen by measurement, see
// docs/performance.md "Ingest"): each network read is stamped once, then fed to StreamSession.
// The send time is the write, not the call: undici 7 defers a request on a reused keep-alive socket to a
// later event-loop turn (idle-socket validation, a setImmediate in client-h1.js), and calls the handler's
// onRequestStart synchronously in writeH1 right before the request's bytes go to the socket. TTFT starts
// there; the call time is kept beside it (calledAtMs) so the gap stays visible.
import { Agent, type Dispatcher } from 'undici';
import { setMaxListeners } from 'node:events';
import { nowMs } from '../clock.js';
import { registerSecret } from '../secrets.js';
import type { ErrorKind, RequestRecord } from './types.js';
import { StreamSession, type SessionOptions } from './stream-session.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, firstTokenTimeoutMs } from './timeouts.js';

export interface StreamRequestOptions extends SessionOptions {
  baseUrl: string; // ends with /v1
  apiKey?: string;
  api: 'chat' | 'completions';
  body: Record<string, unknown>; // complete request body; stream: true is forced
  requestId?: string; // sent as X-Request-Id
  signal?: AbortSignal; // abort -> record with error.kind 'aborted' and everything that arrived
  timeouts?: { connectMs?: number; firstTokenMs?: number; idleMs?: number };
  now?: () => number; // default nowMs; must advance in real milliseconds (timers are real)
  dispatcher?: Dispatcher;
  /** Called once, synchronously, with the first token's arrival time (the ramp waits on it). */
  onFirstToken?: (firstTokenAtMs: number) => void;
}

export { firstTokenTimeoutMs };

const agents = new Map<number, Agent>();

/** The shared keep-alive pool: undici's own header/body timeouts are off, ours are phase-aware. */
export function defaultDispatcher(connectMs = DEFAULT_CONNECT_TIMEOUT_MS): Agent {
  let a = agents.get(connectMs);
  if (!a) {
    a = new Agent({
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: { timeout: connectMs },
      keepAliveTimeout: 30_000,
    });
    agents.set(connectMs, a);
  }
  return a;
}

const targets = new Map<string, { origin: string; prefix: string }>();
function target(baseUrl: string): { origin: string; prefix: string } {
  let t = targets.get(baseUrl);
  if (!t) {
    const u = new URL(baseUrl);
    t = { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
    targets.set(baseUrl, t);
  }
  return t;
}

class LocalStop extends Error {}

type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];

export function streamRequest(opts: StreamRequestOptions): Promise<RequestRecord> {
  const session = new StreamSession(opts);
  registerSecret(opts.apiKey);
  let origin: string;
  let path: string;
  try {
    const t = target(opts.baseUrl);
    origin = t.origin;
    path = t.prefix + (opts.api === 'chat' ? '/chat/completions' : '/completions');
  } catch {
    session.fail('connect', 'invalid base URL');
    const t = (opts.now ?? nowMs)();
    return session.record(t, t);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (opts.requestId !== undefined) headers['x-request-id'] = opts.requestId;
  const payload = JSON.stringify({ ...opts.body, stream: true });
  return new Promise<RequestRecord>((resolve) => {
    const req = new InFlight(opts, session, resolve);
    if (!req.start()) return;
    try {
      (opts.dispatcher ?? defaultDispatcher(req.connectMs)).dispatch(
        { origin, path, method: 'POST', headers, body: payload },
        req,
      );
    } catch (err) {
      req.stop('connect', `request could not be sent: ${describe(err)}`);
    }
  });
}

/**
 * One request in flight, and its own undici handler: the phase timeouts, the caller's abort and the settle-once
 * rule. Undici calls the handler's methods on this object, so a chunk costs no closure and no allocation here.
 */
class InFlight implements Dispatcher.DispatchHandler {
  readonly connectMs: number;
  private readonly now: () => number;
  private readonly firstMs: number;
  private readonly idleMs: number;
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = Infinity;
  private ended = false;
  private sawFirstToken = false;
  private readonly calledAtMs: number;
  private sentAtMs: number | undefined; // the write; stays unset while undici holds the request back

  constructor(
    private readonly opts: StreamRequestOptions,
    private readonly session: StreamSession,
    private readonly resolve: (r: Promise<RequestRecord>) => void,
  ) {
    this.now = opts.now ?? nowMs;
    this.connectMs = opts.timeouts?.connectMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.firstMs = opts.timeouts?.firstTokenMs ?? firstTokenTimeoutMs(0);
    this.idleMs = opts.timeouts?.idleMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.calledAtMs = this.now();
  }

  /** Listens for the caller's abort and arms the connect timeout; false when already aborted (and settled). */
  start(): boolean {
    const signal = this.opts.signal;
    if (signal?.aborted) {
      this.stop('aborted', 'aborted by the caller before sending');
      return false;
    }
    if (signal) {
      setMaxListeners(0, signal);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    this.arm(this.connectMs, this.calledAtMs);
    return true;
  }

  stop(kind: ErrorKind, message: string): void {
    if (this.settled) return;
    this.session.fail(kind, message);
    this.finish(this.now());
  }

  private finish(t: number): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    this.opts.signal?.removeEventListener('abort', this.onAbort);
    this.resolve(this.session.record(this.sentAtMs ?? this.calledAtMs, t, this.calledAtMs));
    // Stop reading a response we no longer need; a completed one keeps its keep-alive socket.
    const c = this.controller;
    if (c && !this.ended && !c.aborted) c.abort(new LocalStop('done'));
  }

  private readonly onAbort = (): void => this.stop('aborted', 'aborted by the caller');

  // One timer per request, re-armed lazily: no per-chunk timer churn on the hot path.
  private readonly check = (): void => {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    if (this.settled) return;
    const t = this.now();
    const { deadline, kind, since } = this.phaseDeadline(t);
    if (t >= deadline)
      this.stop(kind, `${kind.slice(8).replace('_', ' ')} timeout after ${Math.round(t - since)} ms`);
    else this.arm(deadline - t, t);
  };

  /** The deadline of the phase the request is in, and the moment that phase's wait began. */
  private phaseDeadline(t: number): { deadline: number; kind: ErrorKind; since: number } {
    if (this.sentAtMs === undefined)
      return { deadline: this.calledAtMs + this.connectMs, kind: 'timeout_connect', since: this.calledAtMs };
    if (this.session.firstTokenAtMs === undefined)
      return { deadline: this.sentAtMs + this.firstMs, kind: 'timeout_first_token', since: this.sentAtMs };
    const since = this.session.lastTokenAtMs ?? t;
    return { deadline: since + this.idleMs, kind: 'timeout_idle', since };
  }

  private arm(delayMs: number, t: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerDueAt = t + delayMs;
    this.timer = setTimeout(this.check, Math.max(1, delayMs));
  }

  // Phase changes can only bring a deadline closer at these two moments; chunks only push it later.
  private rearmIfSooner(deadline: number): void {
    const t = this.now();
    if (deadline < this.timerDueAt) this.arm(deadline - t, t);
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.settled) {
      c.abort(new LocalStop('settled'));
      return;
    }
    this.sentAtMs = this.now();
    this.rearmIfSooner(this.sentAtMs + this.firstMs);
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, h: ResponseHeaders): void {
    const ct = h['content-type'];
    this.session.headers(statusCode, Array.isArray(ct) ? ct[0] : ct, this.now());
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    const t = this.now();
    const session = this.session;
    session.data(chunk, t);
    if (!this.sawFirstToken && session.firstTokenAtMs !== undefined) {
      this.sawFirstToken = true;
      this.rearmIfSooner(session.firstTokenAtMs + this.idleMs);
      if (this.opts.onFirstToken) notifyFirstToken(this.opts.onFirstToken, session.firstTokenAtMs);
    }
    if (session.stopped && !this.settled) {
      this.finish(t);
      c.abort(new LocalStop('stopped'));
    }
  }

  onResponseEnd(): void {
    this.ended = true;
    const t = this.now();
    this.session.end(t);
    this.finish(t);
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    const code = (err as { code?: string }).code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT')
      this.stop('timeout_connect', `connect timeout after ${this.connectMs} ms`);
    else if (this.session.headersAtMs === undefined)
      this.stop('connect', `connection failed: ${describe(err)}`);
    else this.stop('stream_truncated', `connection lost mid-stream: ${describe(err)}`);
  }
}

function notifyFirstToken(cb: (t: number) => void, t: number): void {
  try {
    cb(t);
  } catch {
    // a failing observer must not break the stream it observes
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: string }).code;
    const cause = (err as { cause?: unknown }).cause;
    const causeCode = cause instanceof Error ? (cause as { code?: string }).code : undefined;
    return [code, causeCode, err.message].filter(Boolean).join(' ');
  }
  return String(err);
}
