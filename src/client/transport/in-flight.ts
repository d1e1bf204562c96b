// One streamed request in flight, whatever carries it (the lean HTTP/1.1 client or undici): the phase
// timeouts, the caller's abort, the settle-once rule and the session feed. A transport calls sent(),
// headers(), data() per network read with one stamp, and ended() or lost(); it implements release() to stop
// reading a response the record no longer needs. Both transports thus give the same RequestRecord.
import { connectWords } from '../connect-words.js';
import { setMaxListeners } from 'node:events';
import { nowMs } from '../../clock.js';
import type { ErrorKind, RequestRecord } from '../types.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, firstTokenTimeoutMs } from './timeouts.js';
import type { InFlightOptions, ResponseSink } from './transport.js';

export type { InFlightOptions };

export abstract class InFlight {
  readonly connectMs: number;
  protected readonly now: () => number;
  protected settled = false;
  private readonly firstMs: number;
  private readonly idleMs: number;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = Infinity;
  private sawFirstToken = false;
  private readonly calledAtMs: number;
  private connectSince: number; // the call, or a retry's new connection
  private sentAtMs: number | undefined; // the write; unset until the request's bytes go to a socket
  private resend: { firstSentAtMs: number; reason: string } | undefined;

  constructor(
    private readonly opts: InFlightOptions,
    protected readonly session: ResponseSink,
    private readonly resolve: (r: Promise<RequestRecord>) => void,
  ) {
    this.now = opts.now ?? nowMs;
    this.connectMs = opts.timeouts?.connectMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.firstMs = opts.timeouts?.firstTokenMs ?? firstTokenTimeoutMs(0);
    this.idleMs = opts.timeouts?.idleMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.calledAtMs = this.now();
    this.connectSince = this.calledAtMs;
  }

  /** Stops reading a response the record no longer needs (called once, when the request settles). */
  protected abstract release(): void;

  /** Listens for the caller's abort and arms the connect timeout; false when already aborted (and settled). */
  start(): boolean {
    const signal = this.opts.signal;
    if (signal?.aborted) {
      this.stop('aborted', 'aborted by the caller before sending');
      return false;
    }
    if (signal) {
      setMaxListeners(0, signal);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
    this.arm(this.connectMs, this.calledAtMs);
    return true;
  }

  stop(kind: ErrorKind, message: string): void {
    if (this.settled) return;
    this.session.fail(kind, message);
    this.finish(this.now());
  }

  /** The request's bytes go to the socket now: TTFT starts here. */
  protected sent(): void {
    this.sentAtMs = this.now();
    this.rearmIfSooner(this.sentAtMs + this.firstMs);
  }

  /** The request goes out again on a new connection (its first write got no answer): connect phase, from now. */
  protected resending(reason: string): void {
    this.resend = { firstSentAtMs: this.sentAtMs ?? this.calledAtMs, reason };
    this.sentAtMs = undefined;
    this.connectSince = this.now();
    this.rearmIfSooner(this.connectSince + this.connectMs);
  }

  protected headers(status: number, contentType: string | undefined, t: number): void {
    this.session.headers(status, contentType, t);
  }

  /** Body bytes buf[start, end) of a read stamped t. */
  protected data(buf: Buffer, t: number, start: number, end: number): void {
    const session = this.session;
    session.data(buf, t, start, end);
    if (!this.sawFirstToken && session.firstTokenAtMs !== undefined) {
      this.sawFirstToken = true;
      this.rearmIfSooner(session.firstTokenAtMs + this.idleMs);
      if (this.opts.onFirstToken) notifyFirstToken(this.opts.onFirstToken, session.firstTokenAtMs);
    }
    if (session.stopped && !this.settled) this.finish(t);
  }

  /** The response ended normally. */
  protected ended(): void {
    const t = this.now();
    this.session.end(t);
    this.finish(t);
  }

  /** The connection failed or closed before the response ended. */
  protected lost(detail: string): void {
    if (this.settled) return;
    if (this.session.headersAtMs === undefined) this.stop('connect', `connection failed: ${detail}`);
    else this.stop('stream_truncated', `connection lost mid-stream: ${detail}`);
  }

  private finish(t: number): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    this.opts.signal?.removeEventListener('abort', this.onAbort);
    const record = this.session.record(this.sentAtMs ?? this.calledAtMs, t, this.calledAtMs);
    const resend = this.resend;
    this.resolve(resend ? record.then((r) => ({ ...r, resent: resend })) : record);
    this.release();
  }

  private readonly onAbort = (): void => this.stop('aborted', 'aborted by the caller');

  // One timer per request, re-armed lazily: no per-chunk timer churn on the hot path.
  private readonly check = (): void => {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    if (this.settled) return;
    const t = this.now();
    const { deadline, kind, since } = this.phaseDeadline(t);
    if (t >= deadline)
      this.stop(kind, `${kind.slice(8).replace('_', ' ')} timeout after ${Math.round(t - since)} ms`);
    else this.arm(deadline - t, t);
  };

  /** The deadline of the phase the request is in, and the moment that phase's wait began. */
  private phaseDeadline(t: number): { deadline: number; kind: ErrorKind; since: number } {
    if (this.sentAtMs === undefined)
      return {
        deadline: this.connectSince + this.connectMs,
        kind: 'timeout_connect',
        since: this.connectSince,
      };
    if (this.session.firstTokenAtMs === undefined)
      return { deadline: this.sentAtMs + this.firstMs, kind: 'timeout_first_token', since: this.sentAtMs };
    const since = this.session.lastTokenAtMs ?? t;
    return { deadline: since + this.idleMs, kind: 'timeout_idle', since };
  }

  private arm(delayMs: number, t: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerDueAt = t + delayMs;
    this.timer = setTimeout(this.check, Math.max(1, delayMs));
  }

  // Phase changes can only bring a deadline closer at these moments; chunks only push it later.
  private rearmIfSooner(deadline: number): void {
    const t = this.now();
    if (deadline < this.timerDueAt) this.arm(deadline - t, t);
  }
}

function notifyFirstToken(cb: (t: number) => void, t: number): void {
  try {
    cb(t);
  } catch {
    // a failing observer must not break the stream it observes
  }
}

/** One line for a transport error: its code(s) and message. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: string }).code;
    const cause = (err as { cause?: unknown }).cause;
    const causeCode = cause instanceof Error ? (cause as { code?: string }).code : undefined;
    // The code once (Node's message often holds it already), after the words for it where there are some.
    const evidence = [...new Set([code, causeCode])]
      .filter((c): c is string => !!c && !err.message.includes(c))
      .concat(err.message)
      .join(' ');
    const { address, port } = err as { address?: string; port?: number };
    const words = connectWords(code ?? causeCode);
    if (!words) return evidence;
    return address ? `${address}${port ? `:${port}` : ''}: ${words}` : `${words} (${evidence})`;
  }
  return String(err);
}
