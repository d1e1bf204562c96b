import { describe, expect, it } from 'vitest';
import { firstTokenFigures, type SlotResult } from '../../bench/ingest-ttft.js';

// bench:ingest's first-token figures: the re-sends only, their first token against the emitter's write of it,
// and the send stamp against the emitter's read where the client stamps its write.
describe('bench:ingest first-token figures', () => {
  it('takes the re-sends only, their first chunk against the first write', () => {
    const results: SlotResult[] = [
      { id: 'a0', resend: false, r: { chunks: [[100, 1]], sentAtMs: 50 } }, // a slot's first request: not counted
      {
        id: 'a1',
        resend: true,
        r: {
          chunks: [
            [1003, 1],
            [1013, 1],
          ],
          sentAtMs: 990,
        },
      },
      { id: 'b1', resend: true, r: { chunks: [[1007, 1]], sentAtMs: 991 } },
    ];
    const writes = { a0: [99], a1: [1000, 1010], b1: [1000] };
    const arrivals = { a0: 51, a1: 990.5, b1: 992.5 };
    const f = firstTokenFigures(results, writes, arrivals);
    expect(f.ttftSamples).toBe(2);
    expect(f.ttftMissing).toBe(0);
    expect(f.ttftErrP50Ms).toBe(5); // 3 and 7
    expect(f.ttftErrP99Ms).toBeCloseTo(6.96, 6);
    expect(f.sendSamples).toBe(2);
    expect(f.sendErrP50Ms).toBe(1); // 0.5 and 1.5
  });

  it('counts re-sends without a first token as missing, and an unstamped send as unknown', () => {
    const results: SlotResult[] = [
      { id: 'a1', resend: true, r: { chunks: [], sentAtMs: 990 } }, // aborted before its first token
      { id: 'b1', resend: true, r: { chunks: [[1004, 1]], sentAtMs: 0 } }, // a client that does not stamp
      { id: 'c1', resend: true, r: { chunks: [[1004, 1]] } }, // no emitter write logged
    ];
    const f = firstTokenFigures(results, { b1: [1000] }, { a1: 991, b1: 992, c1: 993 });
    expect(f.ttftSamples).toBe(1);
    expect(f.ttftMissing).toBe(2);
    expect(f.ttftErrP50Ms).toBe(4);
    expect(f.sendSamples).toBe(1);
    expect(f.sendErrP50Ms).toBe(1);
  });
});
