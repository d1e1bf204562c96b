import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerOf } from '../../src/answer/answer.js';
import {
  judgeLevel,
  rateAnswers,
  rateEvidence,
  ratePhrase,
  rateSentence,
  rateVerdict,
} from '../../src/answer/levels.js';
import { levelKey } from '../../src/cell-rules.js';
import { parseResultText } from '../../src/results/read.js';
import {
  parseResult,
  type LevelLoad,
  type LevelStatus,
  type LoadLevel,
  type RunResult,
} from '../../src/results/schema.js';

// The answer in requests per second (docs/workloads.md "The answer in requests per second"): each level judged
// from its stored per-request data under any service level, per row the highest rate that meets it.
const FIXTURE = join(import.meta.dirname, '../fixtures/results/synthetic-full.json');
const base = (): RunResult => parseResultText(readFileSync(FIXTURE, 'utf8'), FIXTURE);
const SLO = { ttftMs: 1000, share: 0.9 };

const q = { n: 0, p50: null, p90: null, p99: null, intervals: { p50: null, p90: null, p99: null } };
// A level of `fast` requests with a 100 ms first token and `late` ones with 5 s, each decoding at 30 tok/s.
function level(
  row: string,
  load: LevelLoad,
  fast: number,
  late: number,
  status: LevelStatus = 'Valid',
): LoadLevel {
  const ttftMs = [...Array<number>(fast).fill(100), ...Array<number>(late).fill(5000)];
  return {
    row,
    key: levelKey(row, load),
    load,
    status,
    windowOpenMs: 0,
    windowCloseMs: 100_000,
    requests: { arrived: fast + late, completed: fast + late, failed: 0, unfinished: 0 },
    offeredRate: (fast + late) / 100,
    achievedRate: (fast + late) / 100,
    goodput: fast / 100,
    sloShare: fast / (fast + late),
    ttftMs: q,
    ttftFromSendMs: q,
    itlMs: q,
    e2eMs: q,
    outputTokens: 0,
    totalTokensPerS: 0,
    perRequestTokensPerS: q,
    lag: { n: 0, p50Ms: null, p99Ms: null, maxMs: null, limitMs: 10 },
    windowRequests: { ttftMs, tokensPerS: ttftMs.map(() => 30) },
  };
}
const open = (rate: number): LevelLoad => ({ model: 'open', rate, arrival: 'poisson' });
const ROW = 'shared-prefix:prefixes=4,prefix=2K,suffix=256';

// 1 and 2 req/s: 100 of 100 met it (Wilson low end 96.3%); 4: 18 of 20 (90%, too close to call); 8: 50 of 100
// fails; 16: the client could not keep up.
const LEVELS = [
  level(ROW, open(4), 18, 2),
  level(ROW, open(1), 100, 0),
  level(ROW, open(8), 50, 50),
  level(ROW, open(2), 100, 0),
  level(ROW, open(16), 100, 0, 'Client-bound'),
  level(ROW, { model: 'closed', concurrency: 1 }, 50, 0),
  level(ROW, { model: 'closed', concurrency: 4 }, 50, 0),
  level(ROW, { model: 'closed', concurrency: 8 }, 10, 40, 'Requests queued'),
];

describe('load levels under a service level', () => {
  it('judges each level from its stored requests; a Client-bound one is not judged', () => {
    const v = LEVELS.map((l) => `${l.key} ${judgeLevel(l, SLO).verdict}`);
    expect(v.slice(0, 5)).toEqual([
      `${ROW}@4/s too close to call`,
      `${ROW}@1/s meets`,
      `${ROW}@8/s fails`,
      `${ROW}@2/s meets`,
      `${ROW}@16/s not judged`,
    ]);
    expect(rateVerdict(LEVELS[4]!, SLO)).toBe('client-bound');
    expect(judgeLevel({ ...LEVELS[1]!, status: 'Failed' }, SLO)).toMatchObject({
      verdict: 'fails',
      basis: 'failed',
    });
    // Another service level, judged from the same data: a 10 s first token makes every level meet it.
    expect(judgeLevel(LEVELS[2]!, { ttftMs: 10_000, share: 0.9 }).verdict).toBe('meets');
  });

  it('answers per row: the highest rate meeting it, the next one up, the users at once', () => {
    const r = { ...base(), levels: LEVELS };
    const [a] = rateAnswers(r, SLO);
    expect(a!.row).toBe(ROW);
    expect(a!.capacity?.level.key).toBe(`${ROW}@2/s`);
    expect(a!.undecided.map((j) => j.level.key)).toEqual([`${ROW}@4/s`]);
    expect(a!.limit?.level.key).toBe(`${ROW}@8/s`);
    expect(a!.users).toEqual({ users: 4, atLeast: false });
    expect(ratePhrase(a!)).toBe('2 req/s (4 too close to call; 16 req/s client-bound)');
    expect(rateSentence(a!)).toBe(
      `${ROW}: 2 req/s meets the service level (4 is too close to call); 4 users at once`,
    );
    expect(rateEvidence(a!)).toBe('100% of 100 requests met it at 2 req/s (goodput 1 req/s)');
    expect(answerOf(r, SLO).rates?.[0]?.capacity?.level.key).toBe(`${ROW}@2/s`);
    expect(answerOf(base(), SLO).rates).toBeUndefined();
  });

  it('says "fails it", "at least" and "not even" where the levels do', () => {
    const r = { ...base(), levels: LEVELS.filter((l) => !l.key.endsWith('@4/s')) };
    const [a] = rateAnswers(r, SLO);
    expect(rateSentence(a!)).toBe(`${ROW}: 2 req/s meets the service level (8 fails it); 4 users at once`);
    const [lenient] = rateAnswers(r, { ttftMs: 10_000, share: 0.9 });
    expect(ratePhrase(lenient!)).toBe('at least 8 req/s (16 req/s client-bound)');
    expect(rateSentence(lenient!)).toMatch(/every rate measured meets the service level, up to 8 req\/s/);
    const [strict] = rateAnswers(r, { ttftMs: 50, share: 0.9 });
    expect(ratePhrase(strict!)).toBe('not even 1 req/s');
  });

  it('puts a context row beside the users at once of its decode cells', () => {
    const r = base();
    // The fixture's 8K cells at 1, 2 and 4 users meet a 1 s first token, 8 fails it.
    expect(r.decode.filter((c) => c.contextTokens === 8192).map((c) => c.concurrency)).toEqual([1, 2, 4, 8]);
    const [a] = rateAnswers(
      { ...r, levels: [level('8192', open(1), 100, 0), level('8192', open(2), 50, 50)] },
      SLO,
    );
    expect(rateSentence(a!)).toBe('8K: 1 req/s meets the service level (2 fails it); 4 users at once');
  });
});

describe('a workload or a trace without rates', async () => {
  const { level, levelsResult } = await import('../helpers/level-results.js');
  const { renderReport } = await import('../../src/report/index.js');
  const spec = { evidence: 'measured', itl: [25, 28, 30] as [number, number, number], tokS: 900, lagP99: 1 };
  const MT = 'multi-turn:turns=4,system=2K';
  const closed = (n: number, met: number, late: number) =>
    level({
      ...spec,
      row: MT,
      load: { model: 'closed', concurrency: n },
      status: 'Valid',
      arrived: met + late,
      achieved: met + late,
      met,
      late,
      fastMs: 300,
      ttft: [300, 400, 500],
      e2e: [2000, 2500, 3000],
    });
  const trace = level({
    ...spec,
    row: 'mooncake:file=t.jsonl,block=512',
    load: { model: 'trace', timeScale: 2 },
    status: 'Valid',
    arrived: 300, // over the fixture's 60 s window: 5 req/s offered
    achieved: 300,
    met: 291,
    late: 9,
    fastMs: 200,
    ttft: [200, 300, 3000],
    e2e: [1500, 1800, 4000],
  });
  const result = (levels: LoadLevel[]) =>
    parseResult({ ...levelsResult(), decode: [], prefill: [], levels, rateSearch: [] });

  it('answers a closed-loop workload in users at once and a trace by its verdict, in words', () => {
    // 4 users: 60 of 60 meet; 8 users: 100 of 120 (83%), fails 90%: 4 users at once.
    const r = result([closed(4, 60, 0), closed(8, 100, 20), trace]);
    const [mt, tr] = rateAnswers(r, { ttftMs: 2000, share: 0.9 });
    expect(rateSentence(mt!)).toBe(`${MT}: 4 users at once meet the service level`);
    expect(ratePhrase(mt!)).toBe('4 users at once');
    expect(rateEvidence(mt!)).toBe('');
    // 291 of 300 within 2 s (97%): meets; replayed twice as fast, 300 arrivals in 60 s.
    expect(rateSentence(tr!)).toBe(
      'mooncake:file=t.jsonl,block=512: the trace ×2 (5 req/s offered) meets the service level',
    );
    expect(rateEvidence(tr!)).toBe("97% of 300 requests met it in the trace's window (goodput 4.85 req/s)");
    // 40 of 60 at 4 users (67%): no level met.
    const none = rateAnswers(result([closed(4, 40, 20)]), { ttftMs: 2000, share: 0.9 });
    expect(rateSentence(none[0]!)).toBe(`${MT}: no number of users measured meets the service level`);
    const txt = renderReport(r, 'txt');
    expect(txt).toContain('Workloads and traces (load levels), under the service level:');
    expect(txt).not.toContain('No decode cell measured');
    expect(txt).not.toContain('requests per second under a service level');
    // No rate to answer in: the tables give the row, its answer and the evidence, no empty rate columns.
    expect(renderReport(r, 'md')).toContain('| Row | Under the service level | Evidence |');
    const html = renderReport(r, 'html');
    expect(html).toContain('<th scope="col">Under the service level</th></tr>');
    expect(html).not.toContain('<th scope="col">Why not more</th>');
  });
});
