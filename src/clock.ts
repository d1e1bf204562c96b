// One clock for every timestamp that crosses a module or process boundary:
// epoch ms with sub-ms precision, monotonic within a process, comparable across processes on one machine.
export const nowMs = (): number => performance.timeOrigin + performance.now();

// The time source the runner and the sim take, injected so tests run both in virtual time (src/sim/clock.ts
// VirtualClock, test/bench/virtual-run.ts).
export interface Clock {
  now(): number; // epoch ms, sub-ms precision
  setTimer(fn: () => void, delayMs: number): () => void; // returns cancel
}

export const realClock: Clock = {
  now: nowMs,
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
