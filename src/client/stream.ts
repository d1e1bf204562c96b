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

export function streamRequest(opts: StreamRequestOptions): Promise<RequestRecord> {
  const now = opts.now ?? nowMs;
  const connectMs = opts.timeouts?.connectMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const firstMs = opts.timeouts?.firstTokenMs ?? firstTokenTimeoutMs(0);
  const idleMs = opts.timeouts?.idleMs ?? DEFAULT_IDLE_TIMEOUT_MS;
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
    const t = now();
    return session.record(t, t);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (opts.requestId !== undefined) headers['x-request-id'] = opts.requestId;
  const payload = JSON.stringify({ ...opts.body, stream: true });

  return new Promise<RequestRecord>((resolve) => {
    const signal = opts.signal;
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    let timer: NodeJS.Timeout | undefined;
    let timerDueAt = Infinity;
    let ended = false;
    let sawFirstToken = false;
    const calledAtMs = now();
    let sentAtMs: number | undefined; // the write; stays unset while undici holds the request back

    const finish = (t: number) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(session.record(sentAtMs ?? calledAtMs, t, calledAtMs));
      // Stop reading a response we no longer need; a completed one keeps its keep-alive socket.
      if (controller && !ended && !controller.aborted) controller.abort(new LocalStop('done'));
    };
    const stop = (kind: ErrorKind, message: string) => {
      if (settled) return;
      session.fail(kind, message);
      finish(now());
    };
    const onAbort = () => stop('aborted', 'aborted by the caller');

    // One timer per request, re-armed lazily: no per-chunk timer churn on the hot path.
    const check = () => {
      timer = undefined;
      timerDueAt = Infinity;
      if (settled) return;
      const t = now();
      let deadline: number;
      let kind: ErrorKind;
      if (sentAtMs === undefined) {
        deadline = calledAtMs + connectMs;
        kind = 'timeout_connect';
      } else if (session.firstTokenAtMs === undefined) {
        deadline = sentAtMs + firstMs;
        kind = 'timeout_first_token';
      } else {
        deadline = (session.lastTokenAtMs ?? t) + idleMs;
        kind = 'timeout_idle';
      }
      if (t >= deadline) {
        const since =
          kind === 'timeout_idle' ? deadline - idleMs : kind === 'timeout_connect' ? calledAtMs : sentAtMs!;
        stop(kind, `${kind.slice(8).replace('_', ' ')} timeout after ${Math.round(t - since)} ms`);
      } else {
        arm(deadline - t, t);
      }
    };
    const arm = (delayMs: number, t: number) => {
      if (timer) clearTimeout(timer);
      timerDueAt = t + delayMs;
      timer = setTimeout(check, Math.max(1, delayMs));
    };
    // Phase changes can only bring a deadline closer at these two moments; chunks only push it later.
    const rearmIfSooner = (deadline: number) => {
      const t = now();
      if (deadline < timerDueAt) arm(deadline - t, t);
    };

    if (signal?.aborted) {
      stop('aborted', 'aborted by the caller before sending');
      return;
    }
    if (signal) {
      setMaxListeners(0, signal);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    arm(connectMs, calledAtMs);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (settled) {
          c.abort(new LocalStop('settled'));
          return;
        }
        sentAtMs = now();
        rearmIfSooner(sentAtMs + firstMs);
      },
      onResponseStart(_c, statusCode, h) {
        const ct = h['content-type'];
        session.headers(statusCode, Array.isArray(ct) ? ct[0] : ct, now());
      },
      onResponseData(c, chunk) {
        const t = now();
        session.data(chunk, t);
        if (!sawFirstToken && session.firstTokenAtMs !== undefined) {
          sawFirstToken = true;
          rearmIfSooner(session.firstTokenAtMs + idleMs);
          if (opts.onFirstToken) notifyFirstToken(opts.onFirstToken, session.firstTokenAtMs);
        }
        if (session.stopped && !settled) {
          finish(t);
          c.abort(new LocalStop('stopped'));
        }
      },
      onResponseEnd() {
        ended = true;
        const t = now();
        session.end(t);
        finish(t);
      },
      onResponseError(_c, err) {
        if (settled) return;
        const code = (err as { code?: string }).code;
        if (code === 'UND_ERR_CONNECT_TIMEOUT')
          stop('timeout_connect', `connect timeout after ${connectMs} ms`);
        else if (session.headersAtMs === undefined) stop('connect', `connection failed: ${describe(err)}`);
        else stop('stream_truncated', `connection lost mid-stream: ${describe(err)}`);
      },
    };
    try {
      (opts.dispatcher ?? defaultDispatcher(connectMs)).dispatch(
        { origin, path, method: 'POST', headers, body: payload },
        handler,
      );
    } catch (err) {
      stop('connect', `request could not be sent: ${describe(err)}`);
    }
  });
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
