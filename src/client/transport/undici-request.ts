// The undici transport of streamRequest: https:// targets, a caller's own dispatcher, and --http-client undici.
// undici's low-level `dispatch` with our own handler: each network read is stamped once, then fed to the
// session. The send time is the write, not the call: undici 7 defers a request on a reused keep-alive socket to
// a later event-loop turn (idle-socket validation, a setImmediate in client-h1.js), and calls the handler's
// onRequestStart synchronously in writeH1 right before the request's bytes go to the socket. TTFT starts
// there; the call time is kept beside it (calledAtMs) so the gap stays visible.
// Connections the server closes: the lean client's rule (h1-request.ts, origin-policy.ts) on our own
// dispatchers, whose sockets undici-sockets.ts tracks. A request that got no byte on a socket that had
// carried an earlier response is sent once more on a new connection (a one-shot Client); an origin seen
// closing right after a response gets `reset: true` (no reuse). A caller's own dispatcher keeps its own rules.
import { Agent, Client, type Dispatcher } from 'undici';
import type { RequestRecord } from '../types.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './timeouts.js';
import { describeError, InFlight } from './in-flight.js';
import type { InFlightOptions, ResponseSink, Transport } from './transport.js';
import { DEFAULT_KEEP_ALIVE_MS, originKey, OriginPolicies, type OriginPolicy } from './origin-policy.js';

const originPolicies = new OriginPolicies(); // what streamed requests through undici learned
import { socketTag, trackedConnector } from './undici-sockets.js';

const agents = new Map<number, Agent>();

/** The shared keep-alive pool: undici's own header/body timeouts are off, ours are phase-aware. */
export function defaultDispatcher(connectMs = DEFAULT_CONNECT_TIMEOUT_MS): Agent {
  let a = agents.get(connectMs);
  if (!a) {
    a = new Agent({
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: trackedConnector(connectMs),
      // As the lean pool (origin-policy.ts): under the 5 s after which uvicorn and cpp-httplib close an idle
      // connection without saying so, so a request is not written onto one they are closing.
      keepAliveTimeout: DEFAULT_KEEP_ALIVE_MS,
    });
    agents.set(connectMs, a);
  }
  return a;
}

class LocalStop extends Error {}

type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];

interface UndiciTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
  payload: string;
  dispatcher?: Dispatcher;
}

/** undici's dispatch: our own dispatcher (defaultDispatcher), or a caller's, which keeps its own rules. */
export function undiciTransport(dispatcher?: Dispatcher): Transport {
  return {
    name: 'undici',
    carries: () => true,
    send: (opts, sink, req) =>
      new Promise<RequestRecord>((resolve) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of req.headers) headers[name] = value;
        const target: UndiciTarget = { origin: req.origin, path: req.path, headers, payload: req.payload };
        if (dispatcher) target.dispatcher = dispatcher;
        const r = new UndiciRequest(opts, sink, resolve, target);
        if (!r.start()) return;
        try {
          r.send();
        } catch (err) {
          r.stop('connect', `request could not be sent: ${describeError(err)}`);
        }
      }),
  };
}

// Undici calls the handler's methods on this object, so a chunk costs no closure and no allocation here.
class UndiciRequest extends InFlight implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private done = false;
  private answered = false; // response headers arrived
  private oneShot: Client | undefined; // a connection of its own (a re-send, or an origin not reused)
  private resentOnce = false;

  constructor(
    opts: InFlightOptions,
    session: ResponseSink,
    resolve: (r: Promise<RequestRecord>) => void,
    private readonly target: UndiciTarget,
  ) {
    super(opts, session, resolve);
  }

  private get policy(): OriginPolicy {
    return originPolicies.get(originKey(new URL(this.target.origin)));
  }

  send(): void {
    const d = this.target.dispatcher;
    // An origin that closes right after a response gets a new connection per request: a pool would hand out
    // the idle sockets it still holds, each about to be closed.
    if (d === undefined && !this.policy.reuse) this.onNewConnection();
    else (d ?? defaultDispatcher(this.connectMs)).dispatch(this.options(false), this);
  }

  private options(reset: boolean): Dispatcher.DispatchOptions {
    const t = this.target;
    const o: Dispatcher.DispatchOptions = {
      origin: t.origin,
      path: t.path,
      method: 'POST',
      headers: t.headers,
    };
    o.body = t.payload;
    if (reset) o.reset = true; // `connection: close`, and the socket carries nothing more
    return o;
  }

  protected release(): void {
    // Stop reading a response we no longer need; a completed one keeps its keep-alive socket.
    const c = this.controller;
    if (c && !this.done && !c.aborted) c.abort(new LocalStop('done'));
    const one = this.oneShot;
    this.oneShot = undefined;
    if (one) void one.destroy().catch(() => undefined);
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
    this.answered = true;
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
    const tag = socketTag(err);
    if (tag?.reused && !tag.answered && !this.answered && !this.resentOnce) {
      this.policy.noteUnannouncedClose(tag.sinceLastReadMs);
      this.resendOnNew(code === 'UND_ERR_SOCKET' ? err.message : describeError(err));
    } else if (code === 'UND_ERR_CONNECT_TIMEOUT')
      this.stop('timeout_connect', `connect timeout after ${this.connectMs} ms`);
    // undici's "other side closed" says it in words; its code is the transport's, not the server's.
    else this.lost(code === 'UND_ERR_SOCKET' ? err.message : describeError(err));
  }

  // A client of its own is a new connection for certain: the pool's other idle sockets may be as stale.
  private resendOnNew(reason: string): void {
    this.resentOnce = true;
    this.resending(reason);
    this.controller = undefined;
    this.onNewConnection();
  }

  private onNewConnection(): void {
    this.oneShot = new Client(this.target.origin, {
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: trackedConnector(this.connectMs),
    });
    this.oneShot.dispatch(this.options(true), this);
  }
}
