import type { Clock } from '../clock.js';

// Virtual clock for tests: advance() fires due timers in time order.
export class VirtualClock implements Clock {
  private t: number;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 0;
  constructor(startMs = 1_000_000) {
    this.t = startMs;
  }
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, delayMs: number): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.t + Math.max(0, delayMs), fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }
  advanceTo(ms: number): void {
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > ms) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, ms);
  }
  // When the earliest pending timer is due; undefined when none is (a virtual-time driver steps to it).
  nextAtMs(): number | undefined {
    let at: number | undefined;
    for (const x of this.timers) if (at === undefined || x.at < at) at = x.at;
    return at;
  }
  advance(ms: number): void {
    this.advanceTo(this.t + ms);
  }
}
