// streamRequest: one streamed chat/completions request -> one timed RequestRecord (never rejects).
// Two transports give the same record (in-flight.ts holds what they share): the lean HTTP/1.1 client
// (h1-request.ts, plain http://, the default) and undici's dispatch (undici-request.ts: https://, a caller's
// dispatcher, or httpClient 'undici'). Each network read is stamped once, then fed to StreamSession; TTFT
// starts at the write (sentAtMs), the call time is kept beside it (calledAtMs). Why two: docs/performance.md
// "How the client stays cheap".
import type { Dispatcher } from 'undici';
import { nowMs } from '../clock.js';
import { registerSecret } from '../secrets.js';
import type { RequestRecord } from './types.js';
import { StreamSession, type SessionOptions } from './stream-session.js';
import { firstTokenTimeoutMs } from './timeouts.js';
import type { InFlightOptions } from './in-flight.js';
import { sendWithH1 } from './h1-request.js';
import { sendWithUndici } from './undici-request.js';

export const HTTP_CLIENTS = ['lean', 'undici'] as const;
export type HttpClient = (typeof HTTP_CLIENTS)[number];

export interface StreamRequestOptions extends SessionOptions, InFlightOptions {
  baseUrl: string; // ends with /v1
  apiKey?: string;
  api: 'chat' | 'completions';
  body: Record<string, unknown>; // complete request body; stream: true is forced
  requestId?: string; // sent as X-Request-Id
  /** 'lean' (default) for http:// targets; https:// and a given dispatcher always take undici. */
  httpClient?: HttpClient;
  dispatcher?: Dispatcher;
}

export { firstTokenTimeoutMs };

interface Target {
  origin: string;
  prefix: string; // the base URL's path, without a trailing slash
  lean: boolean; // plain http://: the lean client can carry it
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
      lean: u.protocol === 'http:',
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

export function streamRequest(opts: StreamRequestOptions): Promise<RequestRecord> {
  const session = new StreamSession(opts);
  registerSecret(opts.apiKey);
  let t: Target;
  try {
    t = target(opts.baseUrl);
  } catch {
    return failAtOnce(opts, session, 'invalid base URL');
  }
  if (BAD_HEADER_VALUE.test(opts.apiKey ?? '') || BAD_HEADER_VALUE.test(opts.requestId ?? ''))
    return failAtOnce(opts, session, 'request could not be sent: a line break in the API key or request id');
  const path = t.prefix + (opts.api === 'chat' ? '/chat/completions' : '/completions');
  const payload = JSON.stringify({ ...opts.body, stream: true });
  if (t.lean && opts.dispatcher === undefined && opts.httpClient !== 'undici') {
    let head =
      `POST ${path} HTTP/1.1\r\nhost: ${t.hostHeader}\r\ncontent-type: application/json\r\n` +
      `accept: text/event-stream\r\naccept-encoding: identity\r\n`;
    if (opts.apiKey) head += `authorization: Bearer ${opts.apiKey}\r\n`;
    if (opts.requestId !== undefined) head += `x-request-id: ${opts.requestId}\r\n`;
    head += `content-length: ${Buffer.byteLength(payload)}\r\n\r\n`;
    return sendWithH1(opts, session, { host: t.host, port: t.port, bytes: head + payload });
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'accept-encoding': 'identity',
  };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (opts.requestId !== undefined) headers['x-request-id'] = opts.requestId;
  return sendWithUndici(opts, session, {
    origin: t.origin,
    path,
    headers,
    payload,
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
  });
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
