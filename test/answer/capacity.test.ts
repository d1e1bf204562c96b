import { describe, expect, it } from 'vitest';
import { answerOf, answerRows, basisNote, capacityPhrase, type Answer } from '../../src/answer/answer.js';
import { contextCapacity, type CellJudgement } from '../../src/answer/capacity.js';
import { engineSettings } from '../../src/engines/index.js';
import { limitReason, seatsOf } from '../../src/answer/reasons.js';
import { emptyCell } from '../../src/results/empty-cell.js';
import { DEFAULT_SERVICE_LEVEL, type SloVerdict } from '../../src/stats/slo.js';
import { runCliInProcess } from '../helpers/cli.js';
import { SEEDS, seedResult } from '../report/seeds.js';

const judged = (verdicts: Record<number, SloVerdict>): CellJudgement[] =>
  Object.entries(verdicts).map(([n, verdict]) => ({
    cell: emptyCell(8192, Number(n), 'Valid'),
    verdict,
    basis: 'requests',
  }));

describe('capacity of a context', () => {
  it('is the largest level that meets the level with no failing level below', () => {
    const c = contextCapacity(8192, judged({ 1: 'meets', 2: 'meets', 4: 'meets', 8: 'fails', 16: 'meets' }));
    expect(c.capacity?.cell.concurrency).toBe(4);
    expect(c.limit?.cell.concurrency).toBe(8);
    expect(capacityPhrase(c)).toBe('4 users');
  });

  it('steps over levels too close to call, and names those above the capacity', () => {
    const c = contextCapacity(
      8192,
      judged({ 1: 'too close to call', 2: 'meets', 4: 'too close to call', 8: 'fails' }),
    );
    expect(c.capacity?.cell.concurrency).toBe(2);
    expect(c.undecided.map((j) => j.cell.concurrency)).toEqual([4]);
    expect(c.limit?.cell.concurrency).toBe(8);
  });

  it('says "at least" when every level measured meets it, and "not even 1 user" when none does', () => {
    const all = contextCapacity(8192, judged({ 1: 'meets', 2: 'meets' }));
    expect([all.atLeast, capacityPhrase(all)]).toEqual([true, 'at least 2 users']);
    const none = contextCapacity(8192, judged({ 1: 'fails', 2: 'fails' }));
    expect([none.capacity, capacityPhrase(none)]).toEqual([undefined, 'not even 1 user']);
    expect(capacityPhrase(contextCapacity(8192, judged({ 1: 'too close to call' })))).toBe(
      'too close to call at 1 user',
    );
    const below = contextCapacity(
      8192,
      judged({ 1: 'too close to call', 2: 'too close to call', 4: 'too close to call', 8: 'fails' }),
    );
    expect([below.capacity, capacityPhrase(below)]).toEqual([
      undefined,
      'too close to call at 1, 2 or 4 users',
    ]);
  });
});

describe("levels too close to call, in the answer's reason", () => {
  // A twin's prediction: every cell judged from its predicted median, so each says "predicted median request".
  const predicted = (verdicts: Record<number, SloVerdict>): Answer => ({
    slo: DEFAULT_SERVICE_LEVEL,
    sloFrom: 'default',
    contexts: [
      {
        ...contextCapacity(
          512 * 1024,
          judged(verdicts).map((j) => ({ ...j, basis: 'predicted' as const })),
        ),
        reason: { kind: 'kv', users: 8, short: 'KV cache full at 8 users', text: 'Not run.', change: '' },
      },
    ],
    basis: 'predicted',
    predicted: true,
  });

  it('names the levels once, as the capacity does, and the same evidence once', () => {
    const [row] = answerRows(
      predicted({ 1: 'too close to call', 2: 'too close to call', 4: 'too close to call', 8: 'fails' }),
    );
    expect(row!.capacity).toBe('too close to call at 1, 2 or 4 users');
    expect(row!.why).toBe('Too close to call at 1, 2 or 4 users (predicted median request). Not run.');
    const [above] = answerRows(
      predicted({ 1: 'meets', 2: 'too close to call', 4: 'too close to call', 8: 'fails' }),
    );
    expect(above!.why).toBe('Too close to call at 2 or 4 users (predicted median request). Not run.');
  });
});

describe('seats of a queued cell', () => {
  // A 4K x 32 cell of the h200x4-glm-5.3-flash-dflash sim (56 seats), measured by quick: three server samples ran
  // 32, 22 and 26 as requests finished and were sent again, while the client saw all 32 streaming at once for 95%
  // of the window. 32 streaming at once cannot happen on fewer than 32 seats.
  const cell = {
    ...emptyCell(4096, 32, 'Requests queued'),
    clientQueue: {
      queued: false,
      referenceTtftMs: 19.3,
      referenceFrom: "the ×16 cell's median",
      avgPastReference: 0.056,
      avgStreaming: 31.5,
      peakStreaming: 32,
      nearPeakShare: 0.954,
      maxWaitMs: 29.9,
    },
    serverSamples: [
      { tMs: 0, running: 32, waiting: 0 },
      { tMs: 1000, running: 22, waiting: 1 },
      { tMs: 2000, running: 26, waiting: 0 },
    ],
  };

  it('are none where the client saw every request streaming at once: the top level meets it with no limit found', () => {
    expect(seatsOf(cell)).toBeUndefined();
    const vllm = seedResult(SEEDS[1].id); // a vLLM result with 4K answers, for the engine's settings
    const top = (c: typeof cell) =>
      limitReason(
        vllm,
        contextCapacity(4096, [{ cell: c, verdict: 'meets', basis: 'requests' }]),
        DEFAULT_SERVICE_LEVEL,
      );
    expect(top(cell)).toMatchObject({
      kind: 'unmeasured',
      change: 'measure more users: --concurrency 64,128',
    });
    // Had the client seen at most 26 streaming, they waited for a seat.
    expect(
      top({ ...cell, clientQueue: { ...cell.clientQueue, queued: true, peakStreaming: 26 } }),
    ).toMatchObject({
      kind: 'queue',
      seats: 26,
      change: 'vLLM: raise --max-num-seqs (about 26 now)',
    });
  });

  it("are the client's ceiling where it saw fewer, else the server's median running", () => {
    expect(seatsOf({ ...cell, clientQueue: { ...cell.clientQueue, queued: true, peakStreaming: 26 } })).toBe(
      26,
    );
    const { clientQueue: _, ...noClient } = cell;
    expect(seatsOf(noClient)).toBe(26);
  });
});

describe('imported v0.6.2 reports: judged from medians and labelled so', () => {
  it('H200 seed under the default: 8K stops at 4 users (8K x 8 waited 11 s for a first token)', () => {
    const a = answerOf(seedResult(SEEDS[1].id));
    expect(a.sloFrom).toBe('default');
    expect(a.basis).toBe('medians');
    expect(basisNote(a)).toContain('median request');
    const at8k = a.contexts[0]!;
    expect(at8k.capacity?.cell.concurrency).toBe(4);
    expect(at8k.reason).toMatchObject({ kind: 'ttft', users: 8 });
    // 128K: 16 users waited 2,040 ms for a first token, past 2 s: 8 is the capacity, 16 the limit.
    const at128k = a.contexts.find((c) => c.contextTokens === 128 * 1024)!;
    expect(at128k.capacity?.cell.concurrency).toBe(8);
    expect(at128k.limit?.cell.concurrency).toBe(16);
  });

  it('H200 seed: 8K x 8 failed between levels that meet: still the limit, named a likely stall, with the command that measures it again', async () => {
    // 8K TTFT: 109, 126, 176 ms at 1-4 users; 11,091 ms at 8; 514 ms at 16 (and 11-12 s again at 32 and 64).
    const c = answerOf(seedResult(SEEDS[1].id)).contexts[0]!;
    expect([c.capacity?.cell.concurrency, c.limit?.cell.concurrency]).toEqual([4, 8]);
    expect(c.reason.short).toBe('first token late at 8 users (16 met it)');
    expect(c.reason.text).toBe(
      'At 8 users the first token took 11,091 ms with every request running. ' +
        'Yet 16 users met it (first token 514 ms): 8K × 8 looks like a stall.',
    );
    const command =
      'npx llm-inference-bench run --base-url URL --contexts 8K --concurrency 8 --max-output 4096 --duration 30';
    expect(c.reason.change).toBe(
      `measure 8K × 8 again (\`${command}\`); if it fails again: fewer users per server, or faster prefill (more GPUs)`,
    );
    // The command is a real one: `plan` takes every flag `run` takes, and plans that one cell with 4K answers.
    const flags = command.split(' ').slice(5);
    const plan = await runCliInProcess([
      'plan',
      '--max-model-len',
      '1048576',
      '--kv-capacity',
      '2500000',
      ...flags,
      '--json',
    ]);
    expect(plan.code, plan.stderr).toBe(0);
    const p = JSON.parse(plan.stdout) as {
      maxOutput: number;
      cells: Array<{ contextTokens: number; concurrency: number }>;
    };
    expect([p.maxOutput, p.cells.map((x) => [x.contextTokens, x.concurrency])]).toEqual([4096, [[8192, 8]]]);
    // 64K: 32 users late (2,053 ms) and no level above meets it: the plain reason.
    const at64k = answerOf(seedResult(SEEDS[1].id)).contexts.find((x) => x.contextTokens === 64 * 1024)!;
    expect(at64k.reason.text).toBe('At 32 users the first token took 2,053 ms with every request running.');
  });

  it('a level asking 100 tok/s each stops at the per-user speed', () => {
    const a = answerOf(seedResult(SEEDS[1].id), { tokensPerS: 100, share: 0.9 });
    // 8K: 134.5 tok/s at 4, 114.9 at 8, 85.0 at 16.
    expect(a.contexts[0]).toMatchObject({
      capacity: { cell: { concurrency: 8 } },
      reason: { kind: 'speed', users: 16 },
    });
  });
});

describe('engine settings', () => {
  it('names each engine by its own flags', () => {
    expect(engineSettings('vllm').seats).toBe('--max-num-seqs');
    expect(engineSettings('sglang').seats).toBe('--max-running-requests');
    expect(engineSettings('llamacpp').seats).toBe('-np (--parallel)');
    expect(engineSettings('ollama').seats).toBe('OLLAMA_NUM_PARALLEL');
    expect(engineSettings('tgi').admission).toBe('--max-concurrent-requests');
    expect(engineSettings('generic').engine).toBe('the server');
  });
});
