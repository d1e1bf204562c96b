// The one interface of the client's transports: a streamed POST goes out, each network read of its answer is
// stamped once and handed to a sink (the stream's decoding, src/client/decode/stream-session.ts), and one
// RequestRecord comes back. Two implement it: the lean HTTP/1.1 client (h1-request.ts, plain http://) and
// undici's dispatch (undici-request.ts: https://, a caller's dispatcher, or the `undici` choice). Both share
// in-flight.ts (timeouts, abort, settle-once) and origin-policy.ts (connections the server closes), so a record
// does not depend on which carried it. This folder imports nothing of the decoding: the sink is this shape.
import type { ErrorKind, RequestRecord } from '../types.js';

/** What a transport feeds: the response's decoding, one call per network read. */
export interface ResponseSink {
  readonly headersAtMs: number | undefined;
  readonly firstTokenAtMs: number | undefined;
  readonly lastTokenAtMs: number | undefined;
  /** The answer can no longer change the record: stop reading. */
  readonly stopped: boolean;
  headers(status: number, contentType: string | undefined, t: number): void;
  /** Body bytes buf[start, end) that arrived at t. */
  data(buf: Buffer, t: number, start: number, end: number): void;
  end(t: number): void;
  fail(kind: ErrorKind, message: string): void;
  record(sentAtMs: number, endAtMs: number, calledAtMs?: number): Promise<RequestRecord>;
}

/** One streamed POST as it goes on the wire, whichever transport carries it. */
export interface WireRequest {
  origin: string; // scheme://host[:port]
  secure: boolean; // https://
  host: string; // for net.connect: no brackets around an IPv6 address
  port: number;
  hostHeader: string;
  path: string;
  /** Lower-case names, in the order they are written, after `host`; no content-length (the transport's). */
  headers: ReadonlyArray<readonly [string, string]>;
  payload: string;
}

export interface Transport {
  readonly name: 'lean' | 'undici';
  /** Whether this transport can carry the request (the lean client: plain http:// only). */
  carries(req: WireRequest): boolean;
  /** Sends it and resolves with its record; never rejects (a failure is a record). */
  send(opts: InFlightOptions, sink: ResponseSink, req: WireRequest): Promise<RequestRecord>;
}

export interface InFlightOptions {
  signal?: AbortSignal; // abort -> record with error.kind 'aborted' and everything that arrived
  timeouts?: { connectMs?: number; firstTokenMs?: number; idleMs?: number };
  now?: () => number; // default nowMs; must advance in real milliseconds (timers are real)
  /** Called once, synchronously, with the first token's arrival time (the ramp waits on it). */
  onFirstToken?: (firstTokenAtMs: number) => void;
}
