import { describe, expect, it } from 'vitest';
import type { DecodeCellRun } from '../../src/bench/decode-cell.js';
import type { Sent } from '../../src/bench/drive/sender.js';
import type { ClientLoad } from '../../src/client/self-check.js';
import type { RequestRecord } from '../../src/client/types.js';
import type { TruthRecord } from '../../src/sim/index.js';
import { judgeCeilingCell } from '../../bench/lib/ceiling-cell.js';

// bench:ceiling's judge: the runner's self-check, exact counts against the truth, and the engine's own pace.
const window = { openMs: 1000, closeMs: 2000 };
const STEP = 10;

// n streams, one token a chunk every 10 ms through the window; the client stamps each chunk `late` ms after the
// sim sent it, and `short` takes one token off the client's count of the first chunk of stream 0.
function cell(n: number, o: { late?: number; short?: boolean; engineEvery?: number } = {}) {
  const sent: Sent[] = [];
  const truth = new Map<string, TruthRecord>();
  const every = o.engineEvery ?? STEP;
  for (let s = 0; s < n; s++) {
    const sims: Array<[number, number]> = [];
    for (let t = 900; t < 2100; t += every) sims.push([t, 1]);
    const chunks = sims.map(([t, k], i): [number, number] => [
      t + (o.late ?? 0.2),
      o.short && s === 0 && i === 0 ? k + 1 : k,
    ]);
    const id = `r${s}`;
    const record: RequestRecord = {
      sentAtMs: 890,
      firstTokenAtMs: chunks[0]![0],
      endAtMs: 2100,
      chunks,
      outputTokens: chunks.reduce((a, c) => a + c[1], 0),
      tokenCountSource: 'continuous_usage',
      ok: false,
      error: { kind: 'aborted', message: 'aborted by the caller' },
    };
    sent.push({ spec: {} as Sent['spec'], requestId: id, record, estTokens: 0 });
    truth.set(id, {
      id,
      requestId: id,
      api: 'chat',
      stream: true,
      arrivalMs: 891,
      firstTokenMs: sims[0]![0],
      chunks: sims,
      endMs: 2100,
      reason: 'abort',
      promptTokens: 128,
      cachedTokens: 0,
      outputTokens: sims.length,
      reasoningTokens: 0,
    });
  }
  return { sent, truth };
}

const load = (loopDelayP99Ms: number, cpuPctPerThread = 20): ClientLoad => ({
  loopDelayP99Ms,
  loopDelayMaxMs: loopDelayP99Ms,
  cpuPctPerThread,
  threads: 1,
  wallMs: 1000,
});
const run = (sent: Sent[], clientLoad?: ClientLoad): DecodeCellRun => ({
  window,
  zeroMs: window.openMs,
  sent,
  rampTimedOut: false,
  errorLimitHit: false,
  drainTimedOut: false,
  samples: [],
  interrupted: false,
  ...(clientLoad ? { clientLoad } : {}),
});

describe('bench:ceiling cell judge', () => {
  it('green: quiet client, exact counts, the engine at the offered pace', () => {
    const { sent, truth } = cell(8);
    const c = judgeCeilingCell(run(sent, load(1)), truth, 8, 800);
    expect(c.verdict).toBe('green');
    expect(c.reason).toBeNull();
    expect(c.countsExact).toBe('8/8');
    expect(c.engineTokPerS).toBeCloseTo(800, -1);
    expect(c.recvP50Ms).toBeCloseTo(0.2, 6);
  });

  it('red with the self-check reason when the loop delay passes 5 ms at 10 ms between tokens', () => {
    const { sent, truth } = cell(8);
    const c = judgeCeilingCell(run(sent, load(6.5)), truth, 8, 800);
    expect(c.verdict).toBe('red');
    expect(c.reason).toMatch(/self-check: event-loop delay p99 6.5 ms > 5 ms/);
  });

  it('red when the CPU reaches 90% of a core per thread, and process CPU is per thread × threads', () => {
    const { sent, truth } = cell(8);
    const c = judgeCeilingCell(run(sent, { ...load(1, 95), threads: 3 }), truth, 8, 800);
    expect(c.verdict).toBe('red');
    expect(c.reason).toMatch(/client CPU 95% of a core per thread/);
    expect(c.processCpuPctOfCore).toBe(285);
  });

  it('red when one chunk count differs from the truth', () => {
    const { sent, truth } = cell(8, { short: true });
    const c = judgeCeilingCell(run(sent, load(1)), truth, 8, 800);
    expect(c.verdict).toBe('red');
    expect(c.countsExact).toBe('7/8');
    expect(c.reason).toMatch(/token counts off in 1 of 8 requests/);
  });

  it('engine-bound when the sim sent under 90% of the offered rate: not a ceiling of the client', () => {
    const { sent, truth } = cell(8, { engineEvery: 12.5 }); // 80 tok/s a stream against 100 offered
    const c = judgeCeilingCell(run(sent, load(1)), truth, 8, 800);
    expect(c.verdict).toBe('engine-bound');
    expect(c.reason).toMatch(/the sim sent 6\d\d of 800 tok\/s offered/);
  });

  it('red without a self-check: a cell nobody watched is not trusted', () => {
    const { sent, truth } = cell(8);
    expect(judgeCeilingCell(run(sent), truth, 8, 800).verdict).toBe('red');
  });
});
