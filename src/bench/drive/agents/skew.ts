import { BenchError } from '../../../errors.js';
import type { Clock } from '../../../clock.js';

// A clock set wrong on purpose (tests only: docs/distributed.md "Testing the clocks"): it reads the base clock plus
// offsetMs, plus driftMsPerS for every second since it was made, as a host whose clock is off and drifting would.
// Durations (timers) are the base clock's: a drift of 1 ms/s changes them by 0.1%.
export function skewedClock(base: Clock, offsetMs: number, driftMsPerS = 0): Clock {
  const t0 = base.now();
  const skew = (t: number) => offsetMs + (driftMsPerS * (t - t0)) / 1000;
  return {
    now: () => {
      const t = base.now();
      return t + skew(t);
    },
    setTimer: (fn, delayMs) => base.setTimer(fn, delayMs),
    ...(base.timerSlackMs !== undefined ? { timerSlackMs: base.timerSlackMs } : {}),
  };
}

// LLM_BENCH_TEST_CLOCK_SKEW="OFFSET_MS[,DRIFT_MS_PER_S]" on an agent: its stamps are moved that way, so a test on
// one machine sees what agents on hosts with wrong clocks would send.
export const SKEW_ENV = 'LLM_BENCH_TEST_CLOCK_SKEW';

export function skewFromEnv(
  value: string | undefined,
): { offsetMs: number; driftMsPerS: number } | undefined {
  if (value === undefined || value === '') return undefined;
  const [a, b, ...rest] = value.split(',').map((x) => Number(x.trim()));
  if (rest.length > 0 || !Number.isFinite(a) || (b !== undefined && !Number.isFinite(b)))
    throw new BenchError('USAGE', `${SKEW_ENV}=${value} is not OFFSET_MS[,DRIFT_MS_PER_S].`);
  return { offsetMs: a!, driftMsPerS: b ?? 0 };
}
