import type { RequestRecord } from '../client/types.js';
import type { StreamRequestOptions } from '../client/stream.js';
import { nowMs } from '../clock.js';

// What the runner needs from the outside world, injected so a run is an object (no globals) and tests can
// substitute the clock or the transport.
export interface BenchClock {
  now(): number; // epoch ms, sub-ms (src/clock.ts)
  sleep(ms: number, signal?: AbortSignal): Promise<void>; // resolves early (never rejects) on abort
  wallIso(): string; // labels only
}

export interface PromptSource {
  prompt(contextTokens: number, slot: number): Promise<{ text: string; estTokens: number }>;
}

export type StreamFn = (opts: StreamRequestOptions) => Promise<RequestRecord>;

export const realClock: BenchClock = {
  now: nowMs,
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
  wallIso: () => new Date().toISOString(),
};
