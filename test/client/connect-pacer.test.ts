import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectPacer } from '../../src/client/transport/connect-pacer.js';
import { streamRequest } from '../../src/client/stream.js';
import { startSim } from '../../src/sim/server.js';

describe('ConnectPacer', () => {
  afterEach(() => vi.useRealTimers());

  it('opens four connects to an origin per millisecond, in order, the rest in later milliseconds', () => {
    vi.useFakeTimers();
    let t = 1000.2;
    const pacer = new ConnectPacer(4, () => t);
    const opened: Array<[number, number]> = [];
    for (let i = 0; i < 10; i++) pacer.run('127.0.0.1:8080', () => opened.push([i, Math.floor(t)]));
    // the first four now, six wait
    expect(opened.map(([i]) => i)).toEqual([0, 1, 2, 3]);
    expect(pacer.waiting('127.0.0.1:8080')).toBe(6);
    t = 1001.3;
    vi.advanceTimersByTime(1);
    expect(opened.map(([i]) => i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    t = 1002.1;
    vi.advanceTimersByTime(1);
    expect(opened).toEqual([
      [0, 1000],
      [1, 1000],
      [2, 1000],
      [3, 1000],
      [4, 1001],
      [5, 1001],
      [6, 1001],
      [7, 1001],
      [8, 1002],
      [9, 1002],
    ]);
    expect(pacer.waiting('127.0.0.1:8080')).toBe(0);
  });

  it('paces each origin on its own, and a timer that fires late opens no more than four in its millisecond', () => {
    vi.useFakeTimers();
    let t = 5.0;
    const pacer = new ConnectPacer(4, () => t);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 6; i++) pacer.run('a:1', () => a.push(i));
    for (let i = 0; i < 3; i++) pacer.run('b:1', () => b.push(i));
    expect([a.length, b.length]).toEqual([4, 3]);
    // the timer fires with the clock still in the same millisecond (a busy loop): nothing more opens yet
    vi.advanceTimersByTime(1);
    expect(a.length).toBe(4);
    t = 9.5;
    vi.advanceTimersByTime(1);
    expect(a).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('64 new connections at once through the process pacer: every request answered in full, on both transports', async () => {
    // Both transports through the shared pacer, 64 new connections at once: every request answered in full.
    const sim = await startSim({ profile: 'tiny' });
    try {
      for (const httpClient of ['lean', 'undici'] as const) {
        const all = await Promise.all(
          Array.from({ length: 64 }, (_, i) =>
            streamRequest({
              baseUrl: sim.baseUrl,
              api: 'chat',
              httpClient,
              requestId: `pace-${httpClient}-${i}`,
              body: {
                model: sim.profile.servedModelName,
                max_tokens: 2,
                messages: [{ role: 'user', content: 'hi' }],
              },
            }),
          ),
        );
        expect(all.filter((r) => r.error !== undefined)).toEqual([]);
        expect(all.map((r) => r.outputTokens > 0 && r.finishReason !== undefined)).toEqual(
          all.map(() => true),
        );
      }
    } finally {
      await sim.close();
    }
  });
});
