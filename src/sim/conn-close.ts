// Connections the server closes without saying so, as llama.cpp's cpp-httplib does (docs/engines.md
// "HTTP stacks"): after N responses on a kept-alive connection, a FIN with no `Connection: close` before it.
// With `finMs` the FIN follows the last chunk by that much (a timer: at least about 1 ms); without it, the FIN
// waits for the client's next request on that connection and answers it with nothing: the worst timing, a
// request written on a connection the server had already given up, certain rather than a race.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { BenchError } from '../errors.js';

export interface ConnectionClose {
  afterResponses: number;
  finMs?: number; // absent: the FIN comes when the next request arrives, which is never read
}

/** "off", "N" (the worst timing) or "N:MS" (--close-connections). */
export function parseConnectionClose(spec: string): ConnectionClose | null {
  const v = spec.trim().toLowerCase();
  if (v === 'off' || v === 'none') return null;
  const m = /^(\d+)(?::(\d+(?:\.\d+)?))?$/.exec(v);
  if (!m || Number(m[1]) < 1)
    throw new BenchError(
      'USAGE',
      `--close-connections must be N or N:MS (N responses per connection, N >= 1) or off, not "${spec}".`,
    );
  return { afterResponses: Number(m[1]), ...(m[2] !== undefined ? { finMs: Number(m[2]) } : {}) };
}

export class ConnectionCloser {
  private readonly served = new WeakMap<Socket, number>();
  private readonly closing = new WeakSet<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Requests that arrived on a connection being closed and were never read (each got a FIN, no answer). */
  dropped = 0;

  constructor(private readonly rule: ConnectionClose) {}

  /** False when the request came on a connection the server is closing: it gets the FIN and nothing else. */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const s = req.socket;
    if (this.closing.has(s)) {
      this.dropped++;
      this.fin(s);
      return false;
    }
    res.once('finish', () => {
      const n = (this.served.get(s) ?? 0) + 1;
      this.served.set(s, n);
      if (n < this.rule.afterResponses) return;
      this.closing.add(s);
      if (this.rule.finMs === undefined) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.fin(s);
      }, this.rule.finMs);
      t.unref();
      this.timers.add(t);
    });
    return true;
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  // The request's bytes were already read off the socket by node:http, so this is a FIN, not a reset.
  private fin(s: Socket): void {
    if (!s.destroyed) s.destroySoon();
  }
}
