// streamRequest: one streamed chat/completions request -> one timed RequestRecord (never rejects). The request
// is built once (WireRequest) and carried by one of two transports behind one interface
// (transport/transport.ts): the lean HTTP/1.1 client (transport/h1-request.ts, plain http://, the default) and
// undici's dispatch (transport/undici-request.ts: https://, a caller's dispatcher, or httpClient 'undici').
// Each network read is stamped once and fed to the stream's decoding (decode/stream-session.ts); TTFT starts at
// the write (sentAtMs), the call time is kept beside it (calledAtMs). Why two, and how the default is chosen:
// docs/performance.md "How the client stays cheap".
import type { Dispatcher } from 'undici';
import { nowMs } from '../clock.js';
import { registerSecret } from '../secrets.js';
import type { RequestRecord } from './types.js';
import {
  SESSION_KEYS,
  sessionOptionsOf,
  StreamSession,
  type SessionOptions,
} from './decode/stream-session.js';
import { checkOptions, keysOf } from '../option-keys.js';
import { firstTokenTimeoutMs } from './transport/timeouts.js';
import type { InFlightOptions, Transport, WireRequest } from './transport/transport.js';
import { leanTransport } from './transport/h1-request.js';
import { undiciTransport } from './transport/undici-request.js';

export const HTTP_CLIENTS = ['lean', 'undici'] as const;
export type HttpClient = (typeof HTTP_CLIENTS)[number];

/**
 * The transport for http:// targets unless asked otherwise. Chosen by data (docs/performance.md "Which
 * transport is the default"): the lean client passes the whole conformance matrix and stays at or under 1.3x
 * the raw-socket floor's CPU in `bench:ingest` at 1 and 4 tokens a chunk, 64 and 256 streams; else undici.
 */
export const DEFAULT_HTTP_CLIENT: HttpClient = 'lean';

export interface StreamRequestOptions extends SessionOptions, InFlightOptions {
  baseUrl: string; // ends with /v1
  apiKey?: string;
  api: 'chat' | 'completions';
  body: Record<string, unknown>; // complete request body; stream: true is forced
  requestId?: string; // sent as X-Request-Id
  /** DEFAULT_HTTP_CLIENT when unset; https:// and a given dispatcher always take undici. */
  httpClient?: HttpClient;
  dispatcher?: Dispatcher;
}

export { firstTokenTimeoutMs };

const KEYS = [
  ...SESSION_KEYS,
  ...keysOf<Omit<StreamRequestOptions, keyof SessionOptions>>({
    baseUrl: true,
    apiKey: true,
    api: true,
    body: true,
    requestId: true,
    httpClient: true,
    dispatcher: true,
    signal: true,
    timeouts: true,
    now: true,
    onFirstToken: true,
  }),
];

const TRANSPORTS: Record<HttpClient, Transport> = { lean: leanTransport(), undici: undiciTransport() };

/** The transport that carries `req`: the one asked for when it can, else undici (it carries everything). */
export function transportFor(req: WireRequest, httpClient: HttpClient = DEFAULT_HTTP_CLIENT): Transport {
  const t = TRANSPORTS[httpClient];
  return t.carries(req) ? t : TRANSPORTS.undici;
}

interface Target {
  origin: string;
  prefix: string; // the base URL's path, without a trailing slash
  secure: boolean;
  host: string; // for net.connect
  port: number;
  hostHeader: string;
}

const targets = new Map<string, Target>();
function target(baseUrl: string): Target {
  let t = targets.get(baseUrl);
  if (!t) {
    const u = new URL(baseUrl);
    t = {
      origin: u.origin,
      prefix: u.pathname.replace(/\/+$/, ''),
      secure: u.protocol === 'https:',
      host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port),
      hostHeader: u.host,
    };
    targets.set(baseUrl, t);
  }
  return t;
}

// Both transports say `accept-encoding: identity`: a compressing proxy (nginx `gzip` on text/event-stream) holds
// a stream it compresses (measured: the whole answer), so the client never asks for one (docs/method.md "Streams
// held back"); without the header a server may pick any coding (RFC 9110 §12.5.3).

// A line break in a header value would end the header early: the rest would be sent as headers of its own.
const BAD_HEADER_VALUE = /[\r\n\0]/;

// A misnamed option throws before anything is sent: a bad call, not a failed request.
export function streamRequest(opts: StreamRequestOptions): Promise<RequestRecord> {
  checkOptions('streamRequest', opts, KEYS);
  const session = new StreamSession(sessionOptionsOf(opts));
  registerSecret(opts.apiKey);
  let t: Target;
  try {
    t = target(opts.baseUrl);
  } catch {
    return failAtOnce(opts, session, 'invalid base URL');
  }
  if (BAD_HEADER_VALUE.test(opts.apiKey ?? '') || BAD_HEADER_VALUE.test(opts.requestId ?? ''))
    return failAtOnce(opts, session, 'request could not be sent: a line break in the API key or request id');
  const headers: Array<[string, string]> = [
    ['content-type', 'application/json'],
    ['accept', 'text/event-stream'],
    ['accept-encoding', 'identity'],
  ];
  if (opts.apiKey) headers.push(['authorization', `Bearer ${opts.apiKey}`]);
  if (opts.requestId !== undefined) headers.push(['x-request-id', opts.requestId]);
  const req: WireRequest = {
    origin: t.origin,
    secure: t.secure,
    host: t.host,
    port: t.port,
    hostHeader: t.hostHeader,
    path: t.prefix + (opts.api === 'chat' ? '/chat/completions' : '/completions'),
    headers,
    payload: JSON.stringify({ ...opts.body, stream: true }),
  };
  const transport = opts.dispatcher ? undiciTransport(opts.dispatcher) : transportFor(req, opts.httpClient);
  return transport.send(opts, session, req);
}

function failAtOnce(
  opts: StreamRequestOptions,
  session: StreamSession,
  message: string,
): Promise<RequestRecord> {
  session.fail('connect', message);
  const t = (opts.now ?? nowMs)();
  return session.record(t, t);
}
