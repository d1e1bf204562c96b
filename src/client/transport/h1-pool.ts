// Keep-alive connections of the lean HTTP/1.1 client, per origin. A connection's socket listeners are set
// once, when it opens, and route to whichever request uses it now: no listener is added per request, none
// per read. Idle connections are unref'd (they never keep the process alive) and dropped when the server
// closes them, when they sit idle past the keep-alive time (origin-policy.ts), or when bytes arrive that no
// request asked for. A close of a kept-alive connection before any answer teaches the origin's policy.
import net from 'node:net';
import { connectPacer } from './connect-pacer.js';
import { OriginPolicies, type AnnouncedKeepAlive, type OriginPolicy } from './origin-policy.js';

/** The request using a connection: told of its socket's events. */
export interface ConnUser {
  onConnect(): void;
  onRead(buf: Buffer): void;
  onEof(): void; // the server closed its side
  onFail(err: Error): void; // a socket error, or a close without either
}

export class H1Conn {
  readonly socket: net.Socket;
  connected = false;
  /** Requests written on this connection. */
  uses = 0;
  /** Released since the last poll phase: a close the server sent with the response may not be read yet. */
  cooling = false;
  /** When the last response on it ended (performance.now()); undefined until one did. */
  releasedAt: number | undefined;
  /** What that response announced (Keep-Alive: timeout, max). */
  announced: AnnouncedKeepAlive = {};
  /** A byte arrived since the last write or release. */
  answered = false;
  private user: ConnUser | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private dead = false;

  constructor(
    private readonly pool: H1Pool,
    readonly key: string,
    host: string,
    port: number,
    user: ConnUser,
  ) {
    this.user = user;
    // TCP keepalive as undici sets it: a long prefill or queue wait sends no bytes, and a NAT or load balancer
    // would otherwise drop the idle flow while the request still waits for its first token.
    this.socket = new net.Socket();
    this.socket
      .on('connect', this.onConnect)
      .on('data', this.onData)
      .on('end', this.onEnd)
      .on('error', this.onError)
      .on('close', this.onClose);
    // Paced (connect-pacer.ts); a request aborted while waiting destroys the socket, which then never connects.
    connectPacer.run(key, () => {
      if (!this.dead && !this.socket.destroyed)
        this.socket.connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 });
    });
  }

  get usable(): boolean {
    return !this.dead && this.connected && !this.socket.destroyed && this.socket.writable;
  }

  /** Nothing of an earlier request still waits to be written (a server may answer before reading a body). */
  get drained(): boolean {
    return this.socket.writableLength === 0;
  }

  /** The request, header and body, in one write. */
  write(bytes: string): void {
    this.uses++;
    this.answered = false;
    this.socket.write(bytes);
  }

  take(user: ConnUser): void {
    this.user = user;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.socket.ref();
  }

  idle(keepAliveMs: number): void {
    this.user = undefined;
    this.socket.unref();
    this.idleTimer = setTimeout(this.expire, keepAliveMs);
    this.idleTimer.unref();
  }

  destroy(): void {
    this.user = undefined;
    this.dead = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.pool.forget(this);
    this.socket.destroy();
  }

  // The server ended a kept-alive connection before answering anything more on it (idle, or with a request
  // written and unanswered): the origin learns how soon after a response its connections close.
  private detach(): ConnUser | undefined {
    const u = this.user;
    if (!this.dead && this.releasedAt !== undefined && !this.answered)
      this.pool.policy(this.key).noteUnannouncedClose(performance.now() - this.releasedAt);
    this.destroy();
    return u;
  }

  private readonly expire = (): void => this.destroy();
  private readonly onConnect = (): void => {
    this.connected = true;
    this.user?.onConnect();
  };
  private readonly onData = (buf: Buffer): void => {
    this.answered = true;
    const u = this.user;
    if (u) u.onRead(buf);
    else this.destroy(); // bytes no request asked for: the connection's framing is no longer known
  };
  private readonly onEnd = (): void => this.detach()?.onEof();
  private readonly onError = (err: Error): void => this.detach()?.onFail(err);
  private readonly onClose = (): void => this.detach()?.onFail(new Error('socket closed'));
}

export class H1Pool {
  private readonly idleByKey = new Map<string, H1Conn[]>();

  constructor(private readonly policies: OriginPolicies = new OriginPolicies()) {}

  policy(key: string): OriginPolicy {
    return this.policies.get(key);
  }

  /** An idle connection to host:port (the most recently used) still within its keep time, or a new one. */
  acquire(host: string, port: number, user: ConnUser): H1Conn {
    const key = `${host}:${port}`;
    const list = this.idleByKey.get(key);
    const policy = this.policy(key);
    while (list && list.length > 0) {
      const c = list.pop()!;
      // the policy may have learned, while c sat idle, that it should not be kept this long
      if (c.usable && performance.now() - c.releasedAt! <= policy.keepMs(c.announced)) {
        c.take(user);
        return c;
      }
      c.destroy();
    }
    return new H1Conn(this, key, host, port, user);
  }

  /** Always a new connection: a re-send's (h1-request.ts). */
  fresh(host: string, port: number, user: ConnUser): H1Conn {
    return new H1Conn(this, `${host}:${port}`, host, port, user);
  }

  /** A response ended and the connection may carry another: idle until taken, expired or closed. */
  release(c: H1Conn, announced: AnnouncedKeepAlive = {}): void {
    c.releasedAt = performance.now();
    c.announced = announced;
    c.answered = false;
    const ms = this.policy(c.key).keepMs(announced);
    const spent = announced.keepAliveMax !== undefined && c.uses >= announced.keepAliveMax;
    // A body still being written (the server answered early: 413, 401) would go before the next request's
    // bytes, and its upload time into that request's TTFT: such a connection carries nothing more.
    if (ms <= 0 || spent || !c.usable || !c.drained) {
      c.destroy();
      return;
    }
    c.idle(ms);
    c.cooling = true;
    nextPoll(() => (c.cooling = false));
    const list = this.idleByKey.get(c.key);
    if (list) list.push(c);
    else this.idleByKey.set(c.key, [c]);
  }

  forget(c: H1Conn): void {
    const list = this.idleByKey.get(c.key);
    const i = list ? list.indexOf(c) : -1;
    if (i !== -1) list!.splice(i, 1);
  }

  /** Idle connections to host:port, the next one taken last (tests, diagnostics). */
  idle(host: string, port: number): readonly H1Conn[] {
    return [...(this.idleByKey.get(`${host}:${port}`) ?? [])];
  }

  /** Closes every idle connection. */
  close(): void {
    for (const list of [...this.idleByKey.values()]) for (const c of [...list]) c.destroy();
  }
}

/**
 * Runs `fn` after the event loop's next poll phase: reads that are ready now (a server's FIN right behind its
 * response) are handled first. A single setImmediate runs in this iteration's check phase, before any new poll.
 */
export function nextPoll(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}

/** The process's pool for streamed requests. */
export const h1Pool = new H1Pool();
