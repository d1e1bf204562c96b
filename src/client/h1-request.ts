// The lean transport of streamRequest: one streamed request over a pooled node:net socket (plain http://),
// parsed by H1ResponseParser, fed to the session in place. Written at once in one socket.write (header and
// body), so sentAtMs is the write on fresh and reused connections alike. A written request is never sent
// again: a server that closes the connection before answering may have read it (and started generating), and
// a benchmark must not load the server with requests it does not record. The race with a server closing an
// idle connection is avoided instead, by the pool's keep-alive time (h1-pool.ts).
import type { RequestRecord } from './types.js';
import type { StreamSession } from './stream-session.js';
import { H1ResponseParser, type H1Head, type H1Sink } from './h1-response.js';
import { h1Pool, type ConnUser, type H1Conn, type H1Pool } from './h1-pool.js';
import { describeError, InFlight, type InFlightOptions } from './in-flight.js';

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
    this.sent();
    c.write(this.target.bytes);
  }

  // The hot path: one stamp per read, the chunk framing decoded in place, body ranges straight to the session.
  onRead(buf: Buffer): void {
    this.t = this.now();
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
    this.conn = undefined;
    if (this.settled) return;
    if (this.parser.eof())
      this.ended(); // a body delimited by the close
    else this.lost('other side closed');
  }

  onFail(err: Error): void {
    this.conn = undefined;
    if (this.settled) return;
    const code = (err as { code?: string }).code ?? '';
    // A reset right after a body delimited by the close still ended it (undici reads it the same way).
    if (code === 'ECONNRESET' && this.parser.eof()) this.ended();
    else this.lost(describeError(err));
  }

  private attach(c: H1Conn): void {
    this.conn = c;
    if (c.connected) this.onConnect();
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
