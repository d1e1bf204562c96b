import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXPECTED_STATUSES, STATUS_SIM_OVERRIDES } from '../helpers/status-matrix.js';
import { isBenchError } from '../../src/errors.js';
import { runVirtual, virtualSettings } from './virtual-run.js';

// The status rules of the runner on the sim in virtual time, decided from the client's own timeline (no server
// metrics). The same matrix over real sockets, with and without metrics: test/integration/statuses.test.ts.
// maxNumSeqs 2 < N = 4 -> Requests queued; 8K x 4: 4 x (8192 + 1024) = 36,864 > 30,000 -> Over capacity.
// Requests live ~2 s (1024 tokens x 2 ms), longer than the 1 s window: queued ones never start inside it.
describe('cell statuses (virtual time, client timeline)', () => {
  it('Valid, Requests queued and Over capacity', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-status-'));
    const { result, error } = await runVirtual(
      virtualSettings(out, {
        contexts: [2048, 8192],
        prefillContexts: [2048],
        concurrency: [1, 2, 4],
        maxOutput: 1024,
        duration: 1,
        rampTimeout: 0.5,
      }),
      {
        sim: { seed: 7, overrides: STATUS_SIM_OVERRIDES },
        info: { kvCapacityTokens: 30_000 },
      },
    );
    expect(error).toBeUndefined();
    const status = Object.fromEntries(
      result.decode.map((c) => [`${c.contextTokens}x${c.concurrency}`, c.status]),
    );
    expect(status).toEqual(EXPECTED_STATUSES);
    const queued = result.decode.find((c) => c.status === 'Requests queued')!;
    expect(queued.queueEvidence).toMatch(/at most 2 of 4 requests streamed at once/);
    expect(queued.avgActive!).toBeCloseTo(2, 0);
    expect(queued.totalTokensPerS).toBeGreaterThan(0);
    const over = result.decode.find((c) => c.status === 'Over capacity')!;
    expect(over.totalTokensPerS).toBeNull();
    expect(over.queueEvidence).toContain('36864 > KV capacity 30000');
  });

  it('a context longer than the server allows, known from the probe: those cells Failed unsent, the rest measured', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-status-'));
    const run = await runVirtual(
      virtualSettings(out, { contexts: [1024, 40_960], concurrency: [1], maxOutput: 64, duration: 1 }),
    );
    expect(isBenchError(run.error) && run.error.code).toBe('CONTEXT_TOO_LONG');
    expect(run.result.decode.map((c) => [c.contextTokens, c.status])).toEqual([
      [1024, 'Valid'],
      [40_960, 'Failed'],
    ]);
    expect(run.result.decode[1]!.error).toMatch(/^CONTEXT_TOO_LONG: .*40,960/);
    expect(run.result.error?.code).toBe('CONTEXT_TOO_LONG');
    // the plan knew: nothing of the 40K context reached the server
    const lines = readFileSync(join(run.dir, 'requests.jsonl'), 'utf8');
    expect(lines).not.toContain('"contextTokens":40960');
  });
});

// The running gauge in virtual time (docs/method.md "Status of a cell"): the h200 seed's profile (56 seats, ~100 ms
// in the API server per request) at 4K with 64-token answers, each a fraction of a second, scraped every second.
describe("cell statuses with the server's metrics (virtual time)", () => {
  const run = (over: { maxNumSeqs?: number; waiting?: boolean }) =>
    runVirtual(
      virtualSettings(mkdtempSync(join(tmpdir(), 'lib-status-')), {
        contexts: [4096],
        prefillContexts: [4096],
        concurrency: [16, 32],
        maxOutput: 64,
        duration: 5,
        metricsInterval: 1,
      }),
      {
        sim: {
          profile: 'h200x4-glm-5.3-flash-dflash',
          seed: 3,
          overrides: { maxNumSeqs: over.maxNumSeqs ?? 56 },
        },
        metrics: { waiting: over.waiting ?? true },
      },
    );
  const runningOf = (c: { serverSamples?: ReadonlyArray<{ running?: number | null }> | undefined }) =>
    (c.serverSamples ?? []).map((x) => x.running).filter((v): v is number => typeof v === 'number');
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };

  it('short answers with every request running at once are Valid, though samples catch requests between answers', async () => {
    const { result, error } = await run({});
    expect(error).toBeUndefined();
    expect(result.decode.map((c) => [c.concurrency, c.status])).toEqual([
      [16, 'Valid'],
      [32, 'Valid'],
    ]);
    const x32 = result.decode[1]!;
    // What the old rule read as a seat limit: the gauge's median and the client's average both under 31.5 ...
    expect(median(runningOf(x32))).toBeLessThan(31.5);
    expect(x32.avgActive!).toBeLessThan(31.5);
    // ... while all 32 streamed at once, and the gauge read 32 at least once: 56 seats
    expect(x32.clientQueue?.peakStreaming).toBe(32);
    expect(Math.max(...runningOf(x32))).toBe(32);
  });

  it('a seat limit below N still queues, from the running gauge alone where the server has no waiting gauge', async () => {
    const { result, error } = await run({ maxNumSeqs: 24, waiting: false });
    expect(error).toBeUndefined();
    expect(result.decode.map((c) => [c.concurrency, c.status])).toEqual([
      [16, 'Valid'],
      [32, 'Requests queued'],
    ]);
    const x32 = result.decode[1]!;
    expect(x32.serverSamples!.every((s) => s.waiting === undefined)).toBe(true);
    expect(Math.max(...runningOf(x32))).toBe(24);
    expect(x32.queueEvidence).toMatch(/^server ran a median of 24 requests \(at most 24 in \d+ samples\)/);
  });
});

// The waiting gauge below the seat count (docs/method.md "The waiting gauge"): 16 seats and a 100 ms step, answers of
// up to 8 tokens that half the time stop early (so the slots fall out of step), 5 ms in the API server. A re-sent
// request reaches the engine inside a step and waits for the next one, and the gauge, scraped every 370 ms (out of
// phase with the steps, as a real scrape is), counts it: at N = 8 and 12 in 8 of 11 samples. All N streamed at
// once and no first token came more than 2 steps past the unqueued one: Valid. N = 20 > 16 seats still queues.
describe('the waiting gauge below the seat count (virtual time, 100 ms steps)', () => {
  const run = (concurrency: number[]) =>
    runVirtual(
      virtualSettings(mkdtempSync(join(tmpdir(), 'lib-status-')), {
        contexts: [1024],
        prefillContexts: [1024],
        concurrency,
        maxOutput: 8,
        ignoreEos: false,
        duration: 4,
        metricsInterval: 0.37,
      }),
      {
        sim: {
          seed: 3,
          overrides: {
            maxNumSeqs: 16,
            decodeStepMs: [
              [1, 100],
              [16, 100],
            ],
            requestOverheadMs: 5,
            earlyStopRate: 0.5,
          },
        },
        metrics: { waiting: true },
      },
    );
  const waitingShare = (c: { serverSamples?: ReadonlyArray<{ waiting?: number | null }> | undefined }) => {
    const s = c.serverSamples ?? [];
    return s.filter((x) => (x.waiting ?? 0) > 0).length / s.length;
  };

  it('N below the seats is Valid though the gauge caught re-sends in most samples; N above them queues', async () => {
    const { result, error } = await run([4, 8, 12, 20]);
    expect(error).toBeUndefined();
    expect(result.decode.map((c) => [c.concurrency, c.status])).toEqual([
      [4, 'Valid'],
      [8, 'Valid'],
      [12, 'Valid'],
      [20, 'Requests queued'],
    ]);
    for (const c of result.decode.slice(1, 3)) {
      // what the waiting-gauge rule alone read as a queue ...
      expect(waitingShare(c), `x${c.concurrency}`).toBeGreaterThanOrEqual(0.5);
      expect(c.queueEvidence).toMatch(
        /^server metrics showed waiting requests in \d+ of \d+ samples \(max \d+\), re-sent/,
      );
      // ... while all N streamed at once, their first tokens within a step of the ×(N - 4) cell's median (200 ms)
      expect(c.clientQueue!.peakStreaming).toBe(c.concurrency);
      expect(c.clientQueue!.maxWaitMs).toBeLessThan(c.clientQueue!.referenceTtftMs + 100);
    }
    const x20 = result.decode[3]!;
    expect(x20.clientQueue!.peakStreaming).toBe(16);
    expect(x20.queueEvidence).toMatch(
      /^server metrics showed waiting requests in \d+ of \d+ samples \(max \d+\);/,
    );
    expect(x20.queueEvidence).toContain('server ran a median of 16 requests (at most 16 in');
  });

  it("with no lower cell the unqueued first token is an idle server's: a re-send may come 2 steps past it", async () => {
    const { result, error } = await run([12, 20]);
    expect(error).toBeUndefined();
    expect(result.decode.map((c) => [c.concurrency, c.status])).toEqual([
      [12, 'Valid'],
      [20, 'Requests queued'],
    ]);
    const x12 = result.decode[0]!;
    expect(waitingShare(x12)).toBeGreaterThanOrEqual(0.5);
    // the ramp's first request: 5 ms in the API server and a prefill-only step; the re-sends: 5 ms, up to a step
    // waiting for the one in progress, and the step they join
    expect(x12.clientQueue!.referenceTtftMs).toBeLessThan(10);
    expect(x12.clientQueue!.maxWaitMs).toBeGreaterThan(x12.clientQueue!.referenceTtftMs + 150);
    expect(x12.clientQueue!.maxWaitMs).toBeLessThanOrEqual(x12.clientQueue!.referenceTtftMs + 200);
  });
});
