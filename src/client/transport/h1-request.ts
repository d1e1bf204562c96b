// The lean transport of streamRequest: one streamed request over a pooled node:net socket (plain http://),
// parsed by H1ResponseParser, fed to the session in place. Written at once in one socket.write (header and
// body), so sentAtMs is the write on fresh and reused connections alike.
// Connections the server closes (docs/performance.md "Connections the server closes", RFC 9112 §9.3.1): the
// pool honours Connection: close and Keep-Alive, and learns origins that close right after a response
// (origin-policy.ts), so a request is rarely written on a connection being closed. When it is, it is sent
// once more, on a new connection, with its TTFT from the new write, and the record says so (`resent`): only
// when its connection had carried an earlier response (reused) and closed or failed before a single byte of
// this answer, which is how a server that closed the connection before reading the request looks. Never
// twice, never after an answer's byte, never on a fresh connection: a server that refuses a new connection
// (the sim's `refuse` fault) is a counted failure.
import type { RequestRecord } from '../types.js';
import { H1ResponseParser, type H1Head, type H1Sink } from './h1-response.js';
import { h1Pool, nextPoll, type ConnUser, type H1Conn, type H1Pool } from './h1-pool.js';
import { describeError, InFlight } from './in-flight.js';
import type { InFlightOptions, ResponseSink, Transport, WireRequest } from './transport.js';

interface H1Target {
  host: string; // for net.connect: no brackets around an IPv6 address
  port: number;
  bytes: string; // the whole request: request line, headers, blank line, body
}

/** The request's bytes, head and body, for its one write. */
export function h1Bytes(req: WireRequest): string {
  let head = `POST ${req.path} HTTP/1.1\r\nhost: ${req.hostHeader}\r\n`;
  for (const [name, value] of req.headers) head += `${name}: ${value}\r\n`;
  return `${head}content-length: ${Buffer.byteLength(req.payload)}\r\n\r\n${req.payload}`;
}

/** The lean HTTP/1.1 transport over `pool` (the process's by default). */
export function leanTransport(pool: H1Pool = h1Pool): Transport {
  return {
    name: 'lean',
    carries: (req) => !req.secure,
    send: (opts, sink, req) =>
      new Promise<RequestRecord>((resolve) => {
        const r = new H1Request(
          opts,
          sink,
          resolve,
          { host: req.host, port: req.port, bytes: h1Bytes(req) },
          pool,
        );
        if (!r.start()) return;
        try {
          r.send();
        } catch (err) {
          r.stop('connect', `request could not be sent: ${describeError(err)}`);
        }
      }),
  };
}

class H1Request extends InFlight implements ConnUser, H1Sink {
  private conn: H1Conn | undefined;
  private readonly parser = new H1ResponseParser(this);
  private head: H1Head | undefined;
  private t = 0; // the current read's stamp
  private reused = false; // the connection carried a request before this one
  private answered = false; // a response byte arrived
  private resent = false;
  private written = false; // on the current connection

  constructor(
    opts: InFlightOptions,
    session: ResponseSink,
    resolve: (r: Promise<RequestRecord>) => void,
    private readonly target: H1Target,
    private readonly pool: H1Pool,
  ) {
    super(opts, session, resolve);
  }

  send(): void {
    this.attach(this.pool.acquire(this.target.host, this.target.port, this));
  }

  protected release(): void {
    const c = this.conn;
    this.conn = undefined;
    c?.destroy(); // a response still coming is not read: its connection cannot carry another
  }

  onConnect(): void {
    const c = this.conn;
    if (!c || this.settled) return;
    this.reused = c.uses > 0;
    this.written = true;
    this.sent();
    c.write(this.target.bytes);
  }

  // The hot path: one stamp per read, the chunk framing decoded in place, body ranges straight to the session.
  onRead(buf: Buffer): void {
    this.t = this.now();
    this.answered = true;
    const used = this.parser.push(buf, 0, buf.length);
    if (this.settled) return;
    const p = this.parser;
    if (p.error !== undefined) this.lost(`invalid HTTP response: ${p.error}`);
    else if (p.complete) this.complete(used === buf.length);
  }

  onHead(head: H1Head): void {
    this.head = head;
    this.headers(head.status, head.headers['content-type'], this.t);
  }

  onBody(buf: Buffer, start: number, end: number): void {
    this.data(buf, this.t, start, end);
  }

  onEof(): void {
    const c = this.conn;
    this.conn = undefined;
    if (this.unwrittenOnPooled(c)) return;
    if (this.settled) return;
    if (this.parser.eof())
      this.ended(); // a body delimited by the close
    else if (this.mayResend()) this.resendOnNew('other side closed');
    else this.lost('other side closed');
  }

  onFail(err: Error): void {
    const c = this.conn;
    this.conn = undefined;
    if (this.unwrittenOnPooled(c)) return;
    if (this.settled) return;
    const code = (err as { code?: string }).code ?? '';
    // A reset right after a body delimited by the close still ended it (undici reads it the same way).
    if (code === 'ECONNRESET' && this.parser.eof()) this.ended();
    else if (this.mayResend()) this.resendOnNew(describeError(err));
    else this.lost(describeError(err));
  }

  // Not a byte of this answer, on a connection that had carried a response before: the server gave it up.
  private mayResend(): boolean {
    return this.reused && !this.answered && !this.resent;
  }

  // A connection released since the last poll phase is written on after the next one, as undici does (it waits
  // a full loop cycle): a close the server sent right behind its response is read by then, and the request goes
  // to another connection instead of failing on a dead one. TTFT starts at the write either way.
  private attach(c: H1Conn): void {
    this.conn = c;
    if (!c.connected) return; // onConnect follows
    if (!c.cooling) this.onConnect();
    else
      nextPoll(() => {
        if (this.conn === c && !this.settled) this.onConnect();
      });
  }

  // A pooled connection that died before this request was written on it: another one carries the request.
  private unwrittenOnPooled(c: H1Conn | undefined): boolean {
    if (this.settled || this.written || c === undefined || c.uses === 0) return false;
    this.attach(this.pool.acquire(this.target.host, this.target.port, this));
    return true;
  }

  // Back to the connect phase, on a new connection (an idle one may be as stale as the one just closed).
  private resendOnNew(reason: string): void {
    this.resent = true;
    this.written = false;
    this.resending(reason);
    this.attach(this.pool.fresh(this.target.host, this.target.port, this));
  }

  private complete(nothingAfter: boolean): void {
    const c = this.conn;
    this.conn = undefined;
    if (c) {
      if (nothingAfter && this.head?.keepAlive) this.pool.release(c, this.head);
      else c.destroy();
    }
    this.ended();
  }
}
