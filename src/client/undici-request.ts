// The undici transport of streamRequest: https:// targets, a caller's own dispatcher, and --http-client undici.
// undici's low-level `dispatch` with our own handler: each network read is stamped once, then fed to the
// session. The send time is the write, not the call: undici 7 defers a request on a reused keep-alive socket to
// a later event-loop turn (idle-socket validation, a setImmediate in client-h1.js), and calls the handler's
// onRequestStart synchronously in writeH1 right before the request's bytes go to the socket. TTFT starts
// there; the call time is kept beside it (calledAtMs) so the gap stays visible.
import { Agent, type Dispatcher } from 'undici';
import type { RequestRecord } from './types.js';
import type { StreamSession } from './stream-session.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './timeouts.js';
import { describeError, InFlight, type InFlightOptions } from './in-flight.js';
import { DEFAULT_KEEP_ALIVE_MS } from './h1-pool.js';

const agents = new Map<number, Agent>();

/** The shared keep-alive pool: undici's own header/body timeouts are off, ours are phase-aware. */
export function defaultDispatcher(connectMs = DEFAULT_CONNECT_TIMEOUT_MS): Agent {
  let a = agents.get(connectMs);
  if (!a) {
    a = new Agent({
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: { timeout: connectMs },
      // As the lean pool (h1-pool.ts): under the 5 s after which uvicorn and cpp-httplib close an idle
      // connection without saying so, so a request is not written onto one they are closing.
      keepAliveTimeout: DEFAULT_KEEP_ALIVE_MS,
    });
    agents.set(connectMs, a);
  }
  return a;
}

class LocalStop extends Error {}

type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];

export interface UndiciTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
  payload: string;
  dispatcher?: Dispatcher;
}

export function sendWithUndici(
  opts: InFlightOptions,
  session: StreamSession,
  target: UndiciTarget,
): Promise<RequestRecord> {
  return new Promise<RequestRecord>((resolve) => {
    const req = new UndiciRequest(opts, session, resolve);
    if (!req.start()) return;
    try {
      (target.dispatcher ?? defaultDispatcher(req.connectMs)).dispatch(
        {
          origin: target.origin,
          path: target.path,
          method: 'POST',
          headers: target.headers,
          body: target.payload,
        },
        req,
      );
    } catch (err) {
      req.stop('connect', `request could not be sent: ${describeError(err)}`);
    }
  });
}

// Undici calls the handler's methods on this object, so a chunk costs no closure and no allocation here.
class UndiciRequest extends InFlight implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private done = false;

  protected release(): void {
    // Stop reading a response we no longer need; a completed one keeps its keep-alive socket.
    const c = this.controller;
    if (c && !this.done && !c.aborted) c.abort(new LocalStop('done'));
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.settled) {
      c.abort(new LocalStop('settled'));
      return;
    }
    this.sent();
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, h: ResponseHeaders): void {
    const ct = h['content-type'];
    this.headers(statusCode, Array.isArray(ct) ? ct[0] : ct, this.now());
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.data(chunk, this.now(), 0, chunk.length);
  }

  onResponseEnd(): void {
    this.done = true;
    this.ended();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    if (this.settled) return;
    const code = (err as { code?: string }).code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT')
      this.stop('timeout_connect', `connect timeout after ${this.connectMs} ms`);
    // undici's "other side closed" says it in words; its code is the transport's, not the server's.
    else this.lost(code === 'UND_ERR_SOCKET' ? err.message : describeError(err));
  }
}
