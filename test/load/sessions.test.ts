import { describe, expect, it } from 'vitest';
import { arrivalOffsets, arrivalSeed } from '../../src/load/arrivals.js';
import { planLevel, sessionsFor, type LevelSpec, type RequestPlan } from '../../src/load/index.js';
import { readWorkload, type TraceLine, type WorkloadSpec } from '../../src/workloads/index.js';

const level = (workload: string, load: LevelSpec['load'], extra: Partial<LevelSpec> = {}): LevelSpec => ({
  runId: 'run-1',
  seed: 5,
  row: 'r',
  key: 'k',
  load,
  workload: { spec: readWorkload(workload) as WorkloadSpec },
  maxOutput: 128,
  ...extra,
});
const take = (g: Generator<RequestPlan>, n: number) =>
  Array.from({ length: n }, () => g.next().value as RequestPlan);

describe('closed levels', () => {
  it('fixed: N slots re-send their slot prompt, all of it cacheable after the first turn', () => {
    const p = planLevel(level('fixed', { model: 'closed', concurrency: 4 }, { contextTokens: 8192 }));
    expect([p.sessions, p.turnsPerSession, p.startsMs]).toEqual([4, undefined, undefined]);
    const s3 = take(p.sessionPlans(3), 3);
    expect(s3.map((r) => [r.index, r.session, r.turn, r.cacheableTokens])).toEqual([
      [2, 3, 1, 0],
      [6, 3, 2, 8192],
      [10, 3, 3, 8192],
    ]);
    expect(s3[1]!.prompt).toEqual({ kind: 'slot', contextTokens: 8192, slot: 3 });
    expect(s3.every((r) => r.atMs === undefined && r.maxOutput === 128 && r.inputTokens === 8192)).toBe(true);
    expect(p.plan(p.indexOf(3, 2))).toEqual(s3[1]);
    expect(() => p.all()).toThrow(/unbounded/);
  });

  it('other workloads: each turn a new request, indexes unique across sessions', () => {
    const p = planLevel(
      level('shared-prefix:prefixes=2,prefix=1K,suffix=100', { model: 'closed', concurrency: 3 }),
    );
    const plans = [1, 2, 3].flatMap((s) => take(p.sessionPlans(s), 4));
    expect(new Set(plans.map((r) => r.index)).size).toBe(12);
    expect([...plans.map((r) => r.index)].sort((a, b) => a - b)).toEqual([...Array(12).keys()]);
    expect(plans.find((r) => r.index === 4)).toMatchObject({ session: 2, turn: 2, cacheableTokens: 1024 });
    expect(plans.find((r) => r.index === 1)!.prompt).toMatchObject({ kind: 'prefixed', prefix: 1, index: 1 });
  });

  it('multi-turn: a session holds conversations one after another, each unique in the level', () => {
    const p = planLevel(
      level('multi-turn:turns=3,think=1s,message=100', { model: 'closed', concurrency: 2 }),
    );
    const s2 = take(p.sessionPlans(2), 7);
    expect(s2.map((r) => [r.turn, r.conversation])).toEqual([
      [1, 2],
      [2, 2],
      [3, 2],
      [1, 4],
      [2, 4],
      [3, 4],
      [1, 6],
    ]);
    expect(s2.map((r) => r.thinkMs)).toEqual([undefined, 1000, 1000, undefined, 1000, 1000, undefined]);
    expect(s2[4]!.prompt).toMatchObject({ kind: 'turn', conversation: 3, turn: 2 }); // conversation item 3 = id 4
    expect(take(p.sessionPlans(1), 4).map((r) => r.conversation)).toEqual([1, 1, 1, 3]);
  });
});

describe('open and trace levels', () => {
  const open = level(
    'lengths:in=uniform(100,200)',
    { model: 'open', rate: 4, arrival: 'poisson' },
    { horizonMs: 30_000 },
  );

  it('one session per arrival of the level, at its arrival, from the arrival seed of (seed, row, rate)', () => {
    const p = planLevel(open);
    const arrivals = arrivalOffsets({ kind: 'poisson', rate: 4 }, 30_000, arrivalSeed(5, 'r', 4));
    expect(p.sessions).toBe(arrivals.length);
    expect(p.startsMs).toEqual(arrivals);
    const all = p.all();
    expect(all.map((r) => r.atMs)).toEqual(arrivals);
    expect(all.map((r) => r.index)).toEqual([...arrivals.keys()]);
    expect(all.every((r) => r.turn === 1 && r.session === r.index + 1)).toBe(true);
  });

  it('the same spec, carried as JSON to a worker or an agent, gives the same plans; another seed others', () => {
    const here = planLevel(open).all();
    const there = planLevel(JSON.parse(JSON.stringify(open)) as LevelSpec).all();
    expect(there).toEqual(here);
    // Split by session over 3 executors: the shares cover every plan once.
    const shares = [0, 1, 2].map((e) => sessionsFor(e, 3, here.length));
    expect(shares.flat().sort((a, b) => a - b)).toEqual(here.map((r) => r.session));
    const other = planLevel({ ...open, seed: 6 }).all();
    expect(other.map((r) => r.atMs)).not.toEqual(here.map((r) => r.atMs));
  });

  it('multi-turn under a rate: arrivals start conversations; later turns wait their think time', () => {
    const p = planLevel(
      level(
        'multi-turn:turns=3,think=exp(2s),message=64',
        { model: 'open', rate: 1, arrival: 'constant' },
        { horizonMs: 3000 },
      ),
    );
    expect([p.sessions, p.turnsPerSession]).toEqual([3, 3]);
    const s2 = [...p.sessionPlans(2)];
    expect(s2.map((r) => [r.index, r.turn, r.conversation, r.atMs])).toEqual([
      [3, 1, 2, 1000],
      [4, 2, 2, undefined],
      [5, 3, 2, undefined],
    ]);
    expect(s2[0]!.thinkMs).toBeUndefined();
    expect(s2[1]!.thinkMs).toBeGreaterThan(0);
    expect(p.all()).toHaveLength(9);
  });

  it('a trace: one session per line at its time-scaled timestamp, request i from line i', () => {
    const lines: TraceLine[] = [
      { line: 1, timestamp: 1000, input: 20, output: 4, hashIds: [0, 1] },
      { line: 2, timestamp: 3000, input: 20, output: 5, hashIds: [0, 2] },
    ];
    const p = planLevel(
      level(
        'mooncake:file=t,block=16',
        { model: 'trace', timeScale: 2, timestampsMs: lines.map((l) => l.timestamp!) },
        {
          workload: { spec: readWorkload('mooncake:file=t,block=16') as WorkloadSpec, lines },
        },
      ),
    );
    expect(p.all().map((r) => [r.atMs, r.maxOutput, r.cacheableTokens])).toEqual([
      [0, 4, 0],
      [1000, 5, 16],
    ]);
    expect(p.all()[1]!.prompt).toEqual({
      kind: 'blocks',
      salt: 'run-1|k',
      ids: [0, 2],
      blockTokens: 16,
      tokens: 20,
    });
  });

  it('an open level without its horizon, or a closed one of no sessions, is refused', () => {
    expect(() => planLevel({ ...open, horizonMs: undefined })).toThrow(/horizon/);
    expect(() =>
      planLevel(level('fixed', { model: 'closed', concurrency: 0 }, { contextTokens: 1 })),
    ).toThrow(/at least one session/);
    expect(() => planLevel(open).plan(10_000)).toThrow(/request 10000 of a level of/);
  });
});
