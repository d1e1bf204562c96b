// New connections to one origin opened a few per millisecond, not all at once. A server accepts connections
// from a listen queue of fixed length: llama-server's cpp-httplib listens with a backlog of 5
// (CPPHTTPLIB_LISTEN_BACKLOG). A burst of hundreds of connects overflows it; Linux then answers with SYN cookies
// and silently drops the handshake's last ACK and the request behind it, and the client, which sees an open
// connection, retransmits on timers that every connection of the burst shares, so the retransmits collide
// again: in the conformance matrix a burst of 256 left requests unanswered past a 60 s first-token timeout.
// Four per millisecond stays under that queue while the server's accept loop runs; a connection that still
// overflows retransmits alone and gets in (docs/engines.md "HTTP stacks"). TTFT is not touched: it starts
// when the request is written, after the connection is open.
export const CONNECTS_PER_MS = 4;

interface Queue {
  windowAt: number; // the millisecond whose connects are counted
  count: number;
  waiting: Array<() => void>;
  timer: NodeJS.Timeout | undefined;
}

export class ConnectPacer {
  private readonly byKey = new Map<string, Queue>();

  constructor(
    private readonly perMs = CONNECTS_PER_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Runs `open` now, or in a later millisecond when this one already opened `perMs` connections to `key`. */
  run(key: string, open: () => void): void {
    const q = this.queue(key);
    if (q.waiting.length === 0 && this.take(q)) {
      open();
      return;
    }
    q.waiting.push(open);
    this.schedule(key, q);
  }

  /** Connects waiting for their turn (tests, diagnostics). */
  waiting(key: string): number {
    return this.byKey.get(key)?.waiting.length ?? 0;
  }

  private queue(key: string): Queue {
    let q = this.byKey.get(key);
    if (!q) {
      q = { windowAt: -1, count: 0, waiting: [], timer: undefined };
      this.byKey.set(key, q);
    }
    return q;
  }

  private take(q: Queue): boolean {
    const ms = Math.floor(this.now());
    if (ms !== q.windowAt) {
      q.windowAt = ms;
      q.count = 0;
    }
    if (q.count >= this.perMs) return false;
    q.count++;
    return true;
  }

  private schedule(key: string, q: Queue): void {
    if (q.timer) return;
    q.timer = setTimeout(() => {
      q.timer = undefined;
      while (q.waiting.length > 0 && this.take(q)) q.waiting.shift()!();
      if (q.waiting.length > 0) this.schedule(key, q);
      else this.byKey.delete(key);
    }, 1);
    // A waiting connect belongs to a request, which keeps the process alive on its own.
    q.timer.unref();
  }
}

/** The process's pacer: both transports' connections to an origin share its listen queue. */
export const connectPacer = new ConnectPacer();
