// One clock for every timestamp that crosses a module or process boundary:
// epoch ms with sub-ms precision, monotonic within a process, comparable across processes on one machine.
export const nowMs = (): number => performance.timeOrigin + performance.now();

// The time source the runner and the sim take, injected so tests run both in virtual time (src/sim/clock.ts
// VirtualClock, test/bench/virtual-run.ts).
export interface Clock {
  now(): number; // epoch ms, sub-ms precision
  setTimer(fn: () => void, delayMs: number): () => void; // returns cancel
  // How much early a wait for an exact instant sets its timer, waiting out the rest on the loop's turns
  // (src/bench/drive/session-loop.ts sleepUntil). None on a virtual clock, whose timers run at their instant.
  readonly timerSlackMs?: number;
}

export const realClock: Clock = {
  now: nowMs,
  // A send's lag p99 went from 1.1-1.3 ms to 0.7-0.8 ms at 50-800 arrivals/s for up to this much of the client's
  // CPU per arrival (docs/performance.md "Keeping to a schedule").
  timerSlackMs: 1,
  setTimer(fn, delayMs) {
    const t = setTimeout(fn, Math.max(0, delayMs));
    return () => clearTimeout(t);
  },
};

// Waits ms on a clock; resolves early, and never rejects, when the signal aborts.
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const done = () => {
      cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimer(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

// A clock's time as ISO text: labels only (a result's startedAt, finishedAt).
export const isoTime = (clock: Clock): string => new Date(clock.now()).toISOString();
