import type { Dispatcher } from 'undici';
import { StreamSession } from '../client/stream-session.js';
import { defaultDispatcher } from '../client/stream.js';

// The ramp must know the moment each slot's first token arrives, while streamRequest only reports at the end.
// This interceptor feeds the same bytes to a second StreamSession (the client's own parser, so "first token"
// means exactly what the client means) until the first token-bearing delta, then passes bytes through untouched.
// The client's handler sees every byte first, so its arrival stamps are not delayed by this tap.
export class FirstTokenTap {
  private readonly waiters = new Map<string, (tMs: number) => void>();
  readonly dispatcher: Dispatcher;

  constructor(now: () => number, base: Dispatcher = defaultDispatcher()) {
    const waiters = this.waiters;
    this.dispatcher = base.compose((dispatch) => (opts, handler) => {
      const id = headerValue(opts.headers, 'x-request-id');
      const cb = id === undefined ? undefined : waiters.get(id);
      if (id === undefined || cb === undefined) return dispatch(opts, handler);
      waiters.delete(id);
      const session = new StreamSession({});
      let done = false;
      const wrapped: Dispatcher.DispatchHandler = {
        onRequestStart: (c, ctx) => handler.onRequestStart?.(c, ctx),
        onRequestUpgrade: (c, status, headers, socket) =>
          handler.onRequestUpgrade?.(c, status, headers, socket),
        onResponseStart: (c, status, headers, message) => {
          const t = now();
          handler.onResponseStart?.(c, status, headers, message);
          const ct = headers['content-type'];
          session.headers(status, Array.isArray(ct) ? ct[0] : ct, t);
        },
        onResponseData: (c, chunk) => {
          const t = now();
          handler.onResponseData?.(c, chunk);
          if (done) return;
          session.data(chunk, t);
          if (session.firstTokenAtMs !== undefined) {
            done = true;
            cb(session.firstTokenAtMs);
          } else if (session.stopped) done = true;
        },
        onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
        onResponseError: (c, err) => handler.onResponseError?.(c, err),
      };
      return dispatch(opts, wrapped);
    });
  }

  // Calls cb once when the request with this X-Request-Id receives its first token.
  watch(requestId: string, cb: (tMs: number) => void): void {
    this.waiters.set(requestId, cb);
  }

  forget(requestId: string): void {
    this.waiters.delete(requestId);
  }
}

function headerValue(headers: Dispatcher.DispatchOptions['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    return undefined;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') return undefined;
  const v = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[0] : v;
}
