import type { ServerResponse } from 'node:http';
import { nowMs } from '../clock.js';

// The response side of the handler core: node:http in the server, a byte recorder in tests.
export interface Writer {
  head(status: number, headers: Record<string, string>): void;
  readonly headSent: boolean;
  write(data: string): number; // returns the send time (epoch ms), taken right after the bytes left
  end(data?: string): number;
  destroy(): void; // abrupt close, no terminating chunk
  readonly closed: boolean;
  onClose(fn: () => void): void; // the client went away (not called after end/destroy)
}

export class NodeWriter implements Writer {
  private done = false;
  private closeFns: Array<() => void> = [];
  constructor(
    private readonly res: ServerResponse,
    private readonly now: () => number,
  ) {
    res.on('close', () => {
      if (this.done) return;
      this.done = true;
      for (const fn of this.closeFns) fn();
    });
  }
  get headSent(): boolean {
    return this.res.headersSent;
  }
  get closed(): boolean {
    return this.done || this.res.destroyed;
  }
  head(status: number, headers: Record<string, string>): void {
    if (this.res.headersSent) return;
    this.res.writeHead(status, headers);
    this.res.flushHeaders();
  }
  write(data: string): number {
    if (this.closed) return this.now();
    this.res.write(data);
    // Node corks a streamed response until the next tick; uncork so the bytes leave now (31 ms later otherwise,
    // measured).
    this.res.socket?.uncork();
    return this.now();
  }
  end(data?: string): number {
    if (this.closed) return this.now();
    this.done = true;
    if (data !== undefined) this.res.end(data);
    else this.res.end();
    this.res.socket?.uncork();
    return this.now();
  }
  destroy(): void {
    if (this.closed) return;
    this.done = true;
    this.res.socket?.destroy();
    this.res.destroy();
  }
  onClose(fn: () => void): void {
    this.closeFns.push(fn);
  }
}

// In-memory writer for handler tests: records status, headers and every write with its time.
export class RecordingWriter implements Writer {
  status = 0;
  headers: Record<string, string> = {};
  writes: Array<{ atMs: number; data: string }> = [];
  ended = false;
  destroyed = false;
  private closeFns: Array<() => void> = [];
  constructor(private readonly now: () => number = nowMs) {}
  get headSent(): boolean {
    return this.status !== 0;
  }
  get closed(): boolean {
    return this.ended || this.destroyed;
  }
  get body(): string {
    return this.writes.map((w) => w.data).join('');
  }
  head(status: number, headers: Record<string, string>): void {
    if (this.status === 0) {
      this.status = status;
      this.headers = headers;
    }
  }
  write(data: string): number {
    const t = this.now();
    if (!this.closed) this.writes.push({ atMs: t, data });
    return t;
  }
  end(data?: string): number {
    const t = this.now();
    if (this.closed) return t;
    if (data !== undefined) this.writes.push({ atMs: t, data });
    this.ended = true;
    return t;
  }
  destroy(): void {
    this.destroyed = true;
  }
  onClose(fn: () => void): void {
    this.closeFns.push(fn);
  }
  // Simulates the client disconnecting.
  disconnect(): void {
    if (this.closed) return;
    this.destroyed = true;
    for (const fn of this.closeFns) fn();
  }
}
