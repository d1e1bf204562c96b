import type { MetricsSampler } from '../target/metrics-sampler.js';
import { sleep, type Clock } from '../clock.js';

// docs/method.md "Sustained decode cell": after the close, wait until the server shows nothing running and nothing
// waiting (aborted requests can linger a step or two), or a short pause where it has no metrics. Bounded by
// timeoutMs.
export async function settle(
  clock: Clock,
  sampler: MetricsSampler | undefined,
  opts: { timeoutMs: number; pauseMs: number; pollMs?: number },
  signal?: AbortSignal,
): Promise<{ settled: boolean; waitedMs: number }> {
  const start = clock.now();
  if (!sampler) {
    await sleep(clock, opts.pauseMs, signal);
    return { settled: true, waitedMs: clock.now() - start };
  }
  const poll = opts.pollMs ?? 100;
  while (!signal?.aborted) {
    const s = await sampler.snapshot();
    const idle = s !== undefined && (s.running ?? 0) === 0 && (s.waiting ?? 0) === 0;
    if (idle || s === undefined) {
      // no reading at all: fall back to the pause
      if (s === undefined) await sleep(clock, opts.pauseMs, signal);
      return { settled: idle, waitedMs: clock.now() - start };
    }
    if (clock.now() - start >= opts.timeoutMs) return { settled: false, waitedMs: clock.now() - start };
    await sleep(clock, poll, signal);
  }
  return { settled: false, waitedMs: clock.now() - start };
}
