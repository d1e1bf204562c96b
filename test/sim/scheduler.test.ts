import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/sim/scheduler.js';
import { drive, req, testProfile } from './helpers.js';

const times = (log: ReturnType<typeof drive>, id: string) => log.filter((e) => e.id === id).map((e) => e.t);

describe('scheduler: chunked prefill and decode', () => {
  it('prefills in chunks of maxBatchedTokens, samples the first token at the end of prefill, then decodes', () => {
    const s = new Scheduler(testProfile());
    s.submit(req('a', 100, 3));
    const log = drive(s);
    // 64 tokens (64 ms) + 36 tokens (36 ms) -> first token at 100; then 10 ms decode steps.
    expect(log).toEqual([
      { t: 100, id: 'a', n: 1, reasoning: 0 },
      { t: 110, id: 'a', n: 1, reasoning: 0 },
      { t: 120, id: 'a', n: 1, reasoning: 0, finish: 'length' },
    ]);
    expect(s.counters.promptTokens).toBe(100);
    expect(s.counters.generationTokens).toBe(3);
  });

  it('batches decodes: two running sequences share 12 ms steps', () => {
    const s = new Scheduler(testProfile({ maxBatchedTokens: 256 }));
    s.submit(req('a', 20, 3));
    s.submit(req('b', 20, 3));
    const log = drive(s);
    // One step prefills both (40 ms), then batch-2 steps of 12 ms.
    expect(times(log, 'a')).toEqual([40, 52, 64]);
    expect(times(log, 'b')).toEqual([40, 52, 64]);
  });

  it('a prefill chunk in a step slows the decodes in it (decode time + prefill time)', () => {
    const s = new Scheduler(testProfile({ maxBatchedTokens: 32 }));
    s.submit(req('a', 10, 5));
    const first = drive(s, 0, 2); // prefill (10 ms) + one decode step (10 ms)
    expect(first.map((e) => e.t)).toEqual([10, 20]);
    s.submit(req('b', 40, 1, { arrivalMs: 20 }));
    const plan = s.plan(20)!;
    // a decodes 1 token (budget 31 left) and b prefills 31 tokens: 10 ms + 31 ms.
    expect(plan.entries.map((e) => [e.seq.id, e.kind, e.tokens])).toEqual([
      ['a', 'decode', 1],
      ['b', 'prefill', 31],
    ]);
    expect(plan.endMs).toBe(20 + 10 + 31);
  });
});

describe('scheduler: admission', () => {
  it('never runs more than maxNumSeqs; the third request is admitted when one finishes', () => {
    const s = new Scheduler(testProfile({ maxBatchedTokens: 256 }));
    const c = s.submit(req('c0', 16, 2));
    s.submit(req('c1', 16, 4));
    const third = s.submit(req('c2', 16, 1));
    let maxRunning = 0;
    let t = 0;
    for (;;) {
      const plan = s.plan(t);
      if (!plan) break;
      maxRunning = Math.max(maxRunning, s.running.length);
      s.complete(plan);
      t = plan.endMs;
    }
    expect(maxRunning).toBe(2);
    // c0 and c1 prefill together (32 ms), decode one 12 ms step: c0 ends at 44 and c2 enters the next step.
    expect(c.status).toBe('done');
    expect(third.admittedMs).toBe(44);
  });

  it('waits for free KV blocks covering the uncached prompt', () => {
    const s = new Scheduler(testProfile({ kvCapacityTokens: 160, maxModelLen: 160, maxBatchedTokens: 256 }));
    s.submit(req('big', 120, 2)); // 8 of 10 blocks
    const small = s.submit(req('small', 64, 1)); // needs 4 blocks: must wait
    const log = drive(s);
    expect(times(log, 'big')).toEqual([120, 130]);
    expect(small.admittedMs).toBe(130);
  });

  it('does not admit a request before its arrival time', () => {
    const s = new Scheduler(testProfile());
    s.submit(req('late', 16, 1, { arrivalMs: 50 }));
    expect(s.plan(10)).toBeNull();
    expect(s.plan(50)?.admitted.map((q) => q.id)).toEqual(['late']);
  });
});

describe('scheduler: KV cache accounting and preemption', () => {
  it('holds ceil((prompt + output) / blockSize) blocks while running and frees them at the end', () => {
    const s = new Scheduler(testProfile({ maxBatchedTokens: 256 }));
    s.submit(req('a', 30, 5));
    drive(s, 0, 1); // prefill + first token: 31 tokens
    expect(s.kv.usedBlocks).toBe(2);
    drive(s, 30, 2); // 33 tokens
    expect(s.kv.usedBlocks).toBe(3);
    drive(s, 50);
    expect(s.kv.usedBlocks).toBe(0);
    expect(s.kv.freeBlocks).toBe(100);
  });

  it('preempts the newest running sequence when blocks run out, then recomputes it', () => {
    // 10 blocks; two 64-token prompts (4 blocks each) growing to 64 + 40 tokens (7 blocks each) cannot both fit.
    const s = new Scheduler(testProfile({ kvCapacityTokens: 160, maxModelLen: 160, maxBatchedTokens: 256 }));
    s.submit(req('old', 64, 40, { ignoreEos: true }));
    const young = s.submit(req('young', 64, 40, { ignoreEos: true }));
    const log = drive(s);
    expect(s.counters.preemptions).toBeGreaterThanOrEqual(1);
    expect(young.preemptions).toBeGreaterThanOrEqual(1);
    const total = (id: string) => log.filter((e) => e.id === id).reduce((a, e) => a + e.n, 0);
    expect(total('old')).toBe(40);
    expect(total('young')).toBe(40);
    // The old one never stalls: it finishes before the young one resumes decoding.
    const oldEnd = log.find((e) => e.id === 'old' && e.finish)!.t;
    expect(log.filter((e) => e.id === 'young' && e.t > oldEnd).length).toBeGreaterThan(0);
    expect(s.kv.usedBlocks).toBe(0);
  });
});

describe('scheduler: prefix cache', () => {
  it('a warm prompt skips the cached blocks of its prefill', () => {
    const s = new Scheduler(testProfile({ maxBatchedTokens: 512 }));
    s.submit(req('cold', 200, 1, { prefix: 7 }));
    const cold = drive(s);
    expect(cold[0]!.t).toBe(200);
    const warm = s.submit(req('warm', 200, 1, { prefix: 7, arrivalMs: 300 }));
    const log = drive(s, 300);
    // 12 full blocks (192 tokens) cached; 8 tokens prefilled.
    expect(warm.cachedTokens).toBe(192);
    expect(log[0]!.t).toBe(308);
    expect(s.kv.hits).toBe(192);
    expect(s.kv.queries).toBe(400);
  });

  it('a fully cached prompt still computes its last token', () => {
    const s = new Scheduler(testProfile({ maxBatchedTokens: 512 }));
    s.submit(req('a', 64, 1, { prefix: 3 }));
    drive(s);
    const b = s.submit(req('b', 64, 1, { prefix: 3, arrivalMs: 100 }));
    const log = drive(s, 100);
    expect(b.cachedTokens).toBe(48);
    expect(log[0]!.t).toBe(116);
  });

  it('evicts least recently freed blocks first when new prompts need room', () => {
    // 10 blocks. A and B each hold 5 (4 prompt + 1 output); freed, A's are older. C takes 7 blocks:
    // all of A's and B's output block plus its last prompt block, so B keeps 3 cached prompt blocks.
    const s = new Scheduler(testProfile({ kvCapacityTokens: 160, maxModelLen: 160, maxBatchedTokens: 512 }));
    s.submit(req('A', 64, 1, { prefix: 1 }));
    drive(s);
    s.submit(req('B', 64, 1, { prefix: 2, arrivalMs: 1000 }));
    drive(s, 1000);
    s.submit(req('C', 96, 1, { prefix: 3, arrivalMs: 2000 }));
    drive(s, 2000);
    const b2 = s.submit(req('B2', 64, 1, { prefix: 2, arrivalMs: 3000 }));
    const a2 = s.submit(req('A2', 64, 1, { prefix: 1, arrivalMs: 3000 }));
    drive(s, 3000);
    expect(a2.cachedTokens).toBe(0);
    expect(b2.cachedTokens).toBe(48);
  });

  it('with prefixCaching off nothing is reused', () => {
    const s = new Scheduler(testProfile({ prefixCaching: false, maxBatchedTokens: 512 }));
    s.submit(req('a', 64, 1, { prefix: 3 }));
    drive(s);
    const b = s.submit(req('b', 64, 1, { prefix: 3, arrivalMs: 100 }));
    drive(s, 100);
    expect(b.cachedTokens).toBe(0);
  });
});

describe('scheduler: speculative decoding', () => {
  it('emits 1..k+1 tokens per step with the configured mean, deterministically per seed', () => {
    const run = (seed: number) => {
      const s = new Scheduler(
        testProfile({ speculative: { k: 3, meanTokens: 2.5 }, maxModelLen: 5000, kvCapacityTokens: 20000 }),
        seed,
      );
      s.submit(req('a', 16, 4000, { ignoreEos: true }));
      return { log: drive(s), s };
    };
    const { log, s } = run(42);
    const sizes = log.slice(1).map((e) => e.n);
    const body = sizes.slice(0, -1); // the last step is clipped to max tokens
    expect(Math.min(...body)).toBe(1);
    expect(Math.max(...body)).toBe(4);
    const mean = body.reduce((a, b) => a + b, 0) / body.length;
    expect(mean).toBeGreaterThan(2.4);
    expect(mean).toBeLessThan(2.6);
    expect(log.reduce((a, e) => a + e.n, 0)).toBe(4000);
    expect(run(42).log.map((e) => e.n)).toEqual(log.map((e) => e.n));
    expect(run(43).log.map((e) => e.n)).not.toEqual(log.map((e) => e.n));
    expect(s.counters.specAcceptedTokens).toBe(4000 - 1 - s.counters.specDrafts);
    expect(s.counters.specDraftTokens).toBe(3 * s.counters.specDrafts);
    // Each step takes one 10 ms decode step whatever its size.
    expect(log[1]!.t - log[0]!.t).toBe(10);
  });

  it('with expected acceptance yields the mean every step, carrying fractions (a twin predicts the expectation)', () => {
    const s = new Scheduler(
      testProfile({ speculative: { k: 3, meanTokens: 2.5 }, maxModelLen: 5000, kvCapacityTokens: 20000 }),
      42,
      true,
    );
    s.submit(req('a', 16, 4000, { ignoreEos: true }));
    const log = drive(s);
    // The prefill step samples one token; then 2.5 a step: 2, 3, 2, 3, ... (0.5 carried, then paid).
    const sizes = log.slice(1).map((e) => e.n);
    expect(sizes.slice(0, 6)).toEqual([2, 3, 2, 3, 2, 3]);
    expect(log.reduce((a, e) => a + e.n, 0)).toBe(4000);
    // 3,999 tokens after the first at 2.5 a step: 1,600 steps (the last clipped to the 4,000).
    expect(sizes).toHaveLength(1600);
    expect(s.counters.specAcceptedTokens / s.counters.specDrafts).toBeCloseTo(1.5, 2);
  });
});

describe('scheduler: EOS and reasoning', () => {
  it('ignore_eos runs to max tokens even when every request would stop early', () => {
    const s = new Scheduler(testProfile({ earlyStopRate: 1 }));
    s.submit(req('a', 16, 50, { ignoreEos: true }));
    const log = drive(s);
    expect(log.reduce((a, e) => a + e.n, 0)).toBe(50);
    expect(log.at(-1)!.finish).toBe('length');
  });

  it('otherwise stops early with reason stop, never before min_tokens', () => {
    const s = new Scheduler(
      testProfile({ earlyStopRate: 1, maxNumSeqs: 64, maxBatchedTokens: 4096, kvCapacityTokens: 64000 }),
      9,
    );
    for (let i = 0; i < 40; i++) s.submit(req(`r${i}`, 16, 100, { minTokens: 30 }));
    const log = drive(s);
    const finals = log.filter((e) => e.finish);
    expect(finals).toHaveLength(40);
    for (const f of finals) expect(f.finish).toBe('stop');
    for (let i = 0; i < 40; i++) {
      const n = log.filter((e) => e.id === `r${i}`).reduce((a, e) => a + e.n, 0);
      expect(n).toBeGreaterThanOrEqual(30);
      expect(n).toBeLessThan(100);
    }
  });

  it('the first reasoningTokens tokens are reasoning', () => {
    const s = new Scheduler(testProfile({ reasoningTokens: 3, speculative: { k: 4, meanTokens: 3 } }), 5);
    s.submit(req('a', 16, 10, { ignoreEos: true }));
    const log = drive(s);
    expect(log.reduce((a, e) => a + e.reasoning, 0)).toBe(3);
    let seen = 0;
    for (const e of log) {
      // reasoning tokens come first inside each emission and never after content started
      if (seen >= 3) expect(e.reasoning).toBe(0);
      seen += e.n;
    }
  });

  it('abort frees the blocks and keeps the computed prompt blocks cached', () => {
    const s = new Scheduler(testProfile({ maxBatchedTokens: 512 }));
    s.submit(req('a', 64, 100, { prefix: 5 }));
    drive(s, 0, 3);
    expect(s.kv.usedBlocks).toBeGreaterThan(0);
    s.abort('a');
    expect(s.kv.usedBlocks).toBe(0);
    expect(s.counters.finished.abort).toBe(1);
    const b = s.submit(req('b', 64, 1, { prefix: 5, arrivalMs: 500 }));
    drive(s, 500);
    expect(b.cachedTokens).toBe(48);
  });
});
