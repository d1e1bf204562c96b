import { describe, expect, it } from 'vitest';
import { answerOf } from '../../src/answer/answer.js';
import { renderReport } from '../../src/report/index.js';
import { parseResult, type LoadLevel, type RunResult } from '../../src/results/schema.js';
import { runCliInProcess } from '../helpers/cli.js';
import { FIXED_ROW, level, levelsResult, PREFIX_ROW } from '../helpers/level-results.js';

// Why the answer in requests per second stops where it does (docs/workloads.md "Why not a higher rate"), worked by
// hand from the fixture's figures (test/helpers/level-results.ts): requests running at once by Little's law, the
// arrivals per second times the seconds each holds a seat (E2E p50 less the wait past the unqueued first token).

const reasonOf = (r: RunResult, row: string) => answerOf(r).rates!.find((x) => x.row === row)!.reason;

// A result with the fixture's 8K levels replaced by `levels`.
function with8K(levels: LoadLevel[]): RunResult {
  const base = levelsResult();
  return parseResult({ ...base, levels: [...levels, ...base.levels!.filter((l) => l.row !== FIXED_ROW)] });
}

const spec = {
  row: FIXED_ROW,
  evidence: 'measured',
  itl: [25, 28, 30] as [number, number, number],
  tokS: 1000,
  lagP99: 1,
};

// 1 req/s with every request meeting the level, no queue.
const metAt1 = () =>
  level({
    ...spec,
    load: { model: 'open', rate: 1, arrival: 'poisson' },
    status: 'Valid',
    arrived: 60,
    achieved: 60,
    met: 60,
    fastMs: 100,
    ttft: [100, 120, 130],
    e2e: [3600, 3700, 3800],
  });

describe('why not a higher rate', () => {
  it('8K: at 4 req/s, 90 at once (4/s × 22.5 s) pass the 64 seats and 90 × (8K + 512) = 783,360 tokens pass the 400,000 of KV: both, changed together', () => {
    const why = reasonOf(levelsResult(), FIXED_ROW)!;
    expect(why.kind).toBe('seats-kv');
    expect(why.rate).toBe(4);
    expect(why.inFlight).toBe(90); // 4 × (22,500 − (1,400 − 1,400)) / 1000: no unqueued reference stored
    expect(why.text).toContain('about 90 running at once (4/s × 22.5 s each)');
    expect(why.text).toContain('the server runs 64 at once (launch command --max-num-seqs 64)');
    expect(why.text).toContain('need 783,360 tokens of KV cache, more than its 400,000');
    expect(why.change).toBe(
      'vLLM: --max-num-seqs 90 and a KV cache of 783,360 tokens (--gpu-memory-utilization) together (more KV cache runs no more at once, more seats do not fit)',
    );
  });

  it('within the seats but past the KV: 2.5 req/s × 22.5 s = 57 at once under 64 seats, 57 × (8K + 512) = 496,128 tokens over 400,000: the KV alone', () => {
    const l = level({
      ...spec,
      load: { model: 'open', rate: 2.5, arrival: 'poisson' },
      status: 'Requests queued',
      arrived: 150,
      achieved: 140,
      met: 100,
      late: 50,
      fastMs: 900,
      ttft: [1400, 6800, 9900],
      e2e: [22_500, 33_000, 38_000],
    });
    const why = reasonOf(with8K([metAt1(), l]), FIXED_ROW)!;
    expect(why.kind).toBe('kv');
    expect(why.inFlight).toBe(56.25);
    expect(why.text).toBe(
      'At 2.5 req/s the arrivals keep about 57 running at once (2.5/s × 22.5 s each); the server runs 64 at once (launch command --max-num-seqs 64), and 57 at 8K with answers up to 512 need 496,128 tokens of KV cache, more than its 400,000: the others waited (TTFT p50 1,400 ms from arrival).',
    );
    expect(why.change).toBe(
      'vLLM: a KV cache of 496,128 tokens (--gpu-memory-utilization); or shorter answers (--max-output)',
    );
  });

  it('a workload row: about 60 at once on average (3.36/s × 17.8 s) within the 64 seats still queues in bursts', () => {
    const why = reasonOf(levelsResult(), PREFIX_ROW)!;
    expect(why.kind).toBe('queue');
    expect(why.inFlight).toBeCloseTo(3.36 * 17.8, 6);
    expect(why.text).toContain('about 60 running at once (3.36/s × 17.8 s each) on average, close to the 64');
    expect(why.text).toContain('bursts of arrivals pass it and wait for a seat');
    expect(why.change).toBe(
      'vLLM: raise --max-num-seqs, for room over the bursts (64 now); or the rate spread over replicas',
    );
  });

  it('the wait past the unqueued first token is not a seat held: 2 req/s × (5 s − (1.1 − 0.1) s) = 8 at once, over 4 seats seen', () => {
    const l = level({
      ...spec,
      load: { model: 'open', rate: 2, arrival: 'poisson' },
      status: 'Requests queued',
      arrived: 120,
      achieved: 110,
      met: 60,
      late: 60,
      fastMs: 300,
      ttft: [1100, 2600, 3100],
      e2e: [5000, 6500, 7000],
    });
    const queued: LoadLevel = {
      ...l,
      queue: {
        clientQueue: {
          queued: true,
          referenceTtftMs: 100,
          referenceFrom: 'the level at 1 req/s',
          avgPastReference: 3,
          avgStreaming: 4,
          peakStreaming: 4,
          nearPeakShare: 0.9,
          maxWaitMs: 3000,
        },
      },
    };
    const r = with8K([metAt1(), queued]);
    const noSeats = parseResult({ ...r, launchCommand: undefined, decode: [] });
    const why = reasonOf(noSeats, FIXED_ROW)!;
    expect(why.inFlight).toBe(8);
    expect(why.kind).toBe('queue');
    expect(why.text).toBe(
      'At 2 req/s the arrivals keep about 8 running at once (2/s × 4.0 s each); the server ran at most 4 at once: the others waited for a seat (TTFT p50 1,100 ms from arrival).',
    );
    expect(why.change).toBe(
      'vLLM: raise --max-num-seqs above about 8 (4 now); or the rate spread over replicas',
    );
  });

  it('a level with no queue that fails on each request’s speed names no setting, and every rate met asks for higher ones', () => {
    const slow = level({
      ...spec,
      load: { model: 'open', rate: 2, arrival: 'poisson' },
      status: 'Valid',
      arrived: 120,
      achieved: 120,
      met: 40,
      slow: 80,
      fastMs: 200,
      ttft: [200, 250, 300],
      e2e: [4000, 4200, 4400],
      itl: [66, 70, 75],
    });
    const why = reasonOf(with8K([metAt1(), slow]), FIXED_ROW)!;
    expect(why.kind).toBe('speed');
    expect(why.text).toBe(
      'At 2 req/s the arrivals keep about 8 running at once (2/s × 4.0 s each) and each request decoded at 15.2 tok/s (median), below the 20 tok/s asked: a batch that large makes every step slower.',
    );
    expect(why.change).toContain('no setting raises it');
    const top = reasonOf(with8K([metAt1()]), FIXED_ROW)!;
    expect(top.kind).toBe('unmeasured');
    // The fixture is a --find-rate run: the search goes on from the highest met.
    expect(top.change).toBe('search on from the highest met: --rates 1');
  });

  it('every rate met: each change printed runs added to the command that printed it', async () => {
    const runs: Array<{ flags: string[]; load: Record<string, unknown> }> = [
      { flags: ['--rates', '0.5,1'], load: { model: 'open', rates: [0.5, 1], arrival: 'poisson' } },
      { flags: ['--find-rate'], load: { model: 'open', rates: [], arrival: 'poisson', findRate: true } },
    ];
    for (const { flags, load } of runs) {
      const base = with8K([metAt1()]);
      const r = parseResult({ ...base, config: { ...base.config, load } });
      const change = reasonOf(r, FIXED_ROW)!.change;
      // Each alternative's flags, added to the run's own: `plan` parses them as `run` does, offline.
      for (const alternative of change.split(', or ')) {
        const added = alternative.match(/--[a-z-]+(?: [\d.,]+)?/g)!.flatMap((f) => f.split(' '));
        expect(added.length).toBeGreaterThan(0);
        const p = await runCliInProcess([
          'plan',
          '--contexts',
          '8K',
          '--max-model-len',
          '16K',
          ...flags,
          ...added,
        ]);
        expect(p.code, `${flags.join(' ')} + ${added.join(' ')}: ${p.stderr}`).toBe(0);
      }
    }
  });

  it('every format carries it: the terminal, Markdown, HTML and JSON', () => {
    const r = levelsResult();
    expect(renderReport(r, 'txt')).toContain('Why not more: At 4 req/s the arrivals keep about 90');
    const md = renderReport(r, 'md');
    expect(md).toContain('| Why not more | What to change |');
    expect(renderReport(r, 'html')).toContain(
      'data-label="Why not more">At 4 req/s the arrivals keep about 90',
    );
    const json = JSON.parse(renderReport(r, 'json')) as {
      answer: { rates: Array<{ row: string; reason: { kind: string; inFlight: number } | null }> };
    };
    expect(json.answer.rates.find((x) => x.row === FIXED_ROW)!.reason).toMatchObject({
      kind: 'seats-kv',
      inFlight: 90,
    });
  });
});
