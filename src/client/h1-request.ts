// The lean transport of streamRequest: one streamed request over a pooled node:net socket (plain http://),
// parsed by H1ResponseParser, fed to the session in place. Written at once in one socket.write (header and
// body), so sentAtMs is the write on fresh and reused connections alike.
// Sent twice only when the server provably never read it: a reused connection reset (ECONNRESET, EPIPE)
// before any response byte and before any EOF. A server closes a socket with a reset when unread bytes are
// in it, or answers a reset to bytes for a socket it has closed: the idle close that raced our write. A clean
// close (EOF) before the answer is never retried: the server may have read the request and started on it
// (the sim's `refuse` fault), and a benchmark must not load a server with requests it does not record. The
// pool's keep-alive time (h1-pool.ts) keeps that race rare to begin with. Never retried twice, nor after a
// response byte, nor on a fresh connection.
import type { RequestRecord } from './types.js';
import type { StreamSession } from './stream-session.js';
import { H1ResponseParser, type H1Head, type H1Sink } from './h1-response.js';
import { h1Pool, nextPoll, type ConnUser, type H1Conn, type H1Pool } from './h1-pool.js';
import { describeError, InFlight, type InFlightOptions } from './in-flight.js';

const RETRY_CODES = new Set(['ECONNRESET', 'EPIPE']);

export interface H1Target {
  host: string; // for net.connect: no brackets around an IPv6 address
  port: number;
  bytes: string; // the whole request: request line, headers, blank line, body
}

export function sendWithH1(
  opts: InFlightOptions,
  session: StreamSession,
  target: H1Target,
  pool: H1Pool = h1Pool,
): Promise<RequestRecord> {
  return new Promise<RequestRecord>((resolve) => {
    const req = new H1Request(opts, session, resolve, target, pool);
    if (!req.start()) return;
    try {
      req.send();
    } catch (err) {
      req.stop('connect', `request could not be sent: ${describeError(err)}`);
    }
  });
}

class H1Request extends InFlight implements ConnUser, H1Sink {
  private conn: H1Conn | undefined;
  private readonly parser = new H1ResponseParser(this);
  private head: H1Head | undefined;
  private t = 0; // the current read's stamp
  private reused = false; // the connection carried a request before this one
  private answered = false; // a response byte arrived
  private retried = false;
  private written = false; // on the current connection

  constructor(
    opts: InFlightOptions,
    session: StreamSession,
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
    else if (RETRY_CODES.has(code) && this.reused && !this.answered && !this.retried) this.retry();
    else this.lost(describeError(err));
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

  // Back to the connect phase, on a new connection (an idle one may be as stale as the one just reset).
  private retry(): void {
    this.retried = true;
    this.written = false;
    this.unsent();
    this.attach(this.pool.fresh(this.target.host, this.target.port, this));
  }

  private complete(nothingAfter: boolean): void {
    const c = this.conn;
    this.conn = undefined;
    if (c) {
      if (nothingAfter && this.head?.keepAlive) this.pool.release(c, this.head.keepAliveTimeoutMs);
      else c.destroy();
    }
    this.ended();
  }
}
