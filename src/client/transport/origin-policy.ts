// When a kept-alive connection to an origin may carry another request: what the server announced, and what it
// was seen to do (docs/performance.md "Connections the server closes"). Shared by both transports.
// RFC 9112 §9.3.1 lets a server close any connection at any time; a client that writes on one the server is
// closing loses the request. So: honour Connection: close and Keep-Alive (timeout=T, max=N); keep an idle
// connection less long than the server's idle close; and learn, per origin, a server that closes connections
// right after a response without saying so (llama.cpp's cpp-httplib, docs/engines.md "HTTP stacks"): its
// connections are not reused at all. What learning cannot foresee is recovered by one re-send (h1-request.ts).

// Below the 5 s after which uvicorn (vLLM, SGLang, TensorRT-LLM) and cpp-httplib (llama.cpp) close an idle
// connection, as undici's own default; TTFT does not include a new connection's connect (it starts at the write).
export const DEFAULT_KEEP_ALIVE_MS = 4_000;
const ANNOUNCED_MARGIN_MS = 1_000; // leave before a timeout the server announces, as undici does
// An unannounced close this soon after a response follows a count of responses or an immediate close, not an
// idle timer (llama-server: 0.1-0.5 ms; uvicorn --timeout-keep-alive 0: the next loop turn): no reuse then.
export const NO_REUSE_BELOW_MS = 100;

export interface AnnouncedKeepAlive {
  /** `Keep-Alive: timeout=N`, in ms. */
  keepAliveTimeoutMs?: number;
  /** `Keep-Alive: max=N`: read as N requests in all on the connection (the stricter of the readings in use). */
  keepAliveMax?: number;
}

export class OriginPolicy {
  /** The shortest time from a response's end to an unannounced close of its connection, in ms. */
  private closeSeenMs = Infinity;

  /** The server closed a kept-alive connection, before any answer to a next request, ms after a response. */
  noteUnannouncedClose(msAfterResponse: number): void {
    if (msAfterResponse < this.closeSeenMs) this.closeSeenMs = Math.max(0, msAfterResponse);
  }

  /** False once the server was seen closing connections right after a response. */
  get reuse(): boolean {
    return this.closeSeenMs >= NO_REUSE_BELOW_MS;
  }

  /** The shortest unannounced close seen (Infinity: none). */
  get closeAfterResponseMs(): number {
    return this.closeSeenMs;
  }

  /**
   * How long a connection whose last response announced `a` may sit idle before the next request, in ms; 0: it
   * carries no other request. Half the shortest close seen, so a write never lands where a close was.
   */
  keepMs(a: AnnouncedKeepAlive = {}): number {
    if (!this.reuse) return 0;
    let ms = DEFAULT_KEEP_ALIVE_MS;
    if (a.keepAliveTimeoutMs !== undefined) ms = Math.min(ms, a.keepAliveTimeoutMs - ANNOUNCED_MARGIN_MS);
    if (Number.isFinite(this.closeSeenMs)) ms = Math.min(ms, this.closeSeenMs / 2);
    return Math.max(0, ms);
  }
}

/** An origin's key: host (no brackets around IPv6) and port, as net.connect takes them. */
export function originKey(u: Pick<URL, 'hostname' | 'port' | 'protocol'>): string {
  const port = u.port || (u.protocol === 'https:' ? '443' : '80');
  return `${u.hostname.replace(/^\[(.*)\]$/, '$1')}:${port}`;
}

const everyRegistry = new Set<OriginPolicies>();

/**
 * Policies by origin key (host:port), for the life of the process. Each client path keeps its own (the lean
 * pool, undici's streaming dispatcher, http.ts), so each learns from what its own requests met and a re-send
 * shows in the records of the requests that needed it.
 */
export class OriginPolicies {
  private readonly byKey = new Map<string, OriginPolicy>();

  constructor() {
    everyRegistry.add(this);
  }

  /** Forgets what every client path learned (tests). */
  static forgetAll(): void {
    for (const r of everyRegistry) r.clear();
  }

  get(key: string): OriginPolicy {
    let p = this.byKey.get(key);
    if (!p) {
      p = new OriginPolicy();
      this.byKey.set(key, p);
    }
    return p;
  }

  /** Forgets what was learned (tests). */
  clear(): void {
    this.byKey.clear();
  }
}
