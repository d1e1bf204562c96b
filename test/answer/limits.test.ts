import { describe, expect, it } from 'vitest';
import { answerOf, capacityPhrase } from '../../src/answer/answer.js';
import { bindingAt, needFor, provenShared, serverLimits } from '../../src/answer/limits.js';
import { engineOf } from '../../src/engines/index.js';
import { emptyCell } from '../../src/results/empty-cell.js';
import type { DecodeCell, RunResult, Target } from '../../src/results/schema.js';
import { syntheticResult } from '../report/synthetic.js';

// What a result tells of a server's limits under its engine's model, and which of them bind at a level
// (src/answer/limits.ts), on small synthetic results; every figure is hand-computed.
function result(engine: string, target: Partial<Target>, o: Partial<RunResult> = {}): RunResult {
  const base = syntheticResult();
  const { launchCommand: _none, ...rest } = base;
  return {
    ...rest,
    engine: { name: engine },
    target: { ...base.target, kvCapacitySource: undefined, ...target },
    config: { ...base.config, maxOutput: 32 },
    ...o,
  };
}

const met = (C: number, N: number): DecodeCell => ({
  ...emptyCell(C, N, 'Valid'),
  perRequestTokensPerS: 80,
  totalTokensPerS: 80 * N,
  ttftMs: 20,
});

describe('server limits per engine', () => {
  it('llama.cpp -c 32768 -np 4 from its launch command: split, 4 slots; at 8 users × 4K both bind', () => {
    const r = result(
      'llamacpp',
      { maxModelLen: 8192, kvCapacityTokens: 32_768, kvCapacityBound: 'exact' },
      { launchCommand: 'llama-server -m m.gguf -c 32768 -np 4' },
    );
    const l = serverLimits(r);
    expect(l).toMatchObject({
      seats: 4,
      seatsSource: 'launch command -np 4',
      layout: 'split',
      kvTokens: 32_768,
    });
    // 8 slots from -c 32,768 hold GGML_PAD(4096, 256) = 4,096 each, short of 4,096 + 32
    const b = bindingAt(l, 4096, 8, 32);
    expect(b).toMatchObject({ seats: true, kv: true, need: 33_024 });
    expect(needFor(l, b, 4096, 8, 32)).toEqual({ seats: 8, kvTokens: 65_536 }); // 8 slots keeping 8,192 each
    // 2K answers fit 8 slots of 4,096: the slots alone bind
    expect(bindingAt(l, 2048, 8, 32)).toMatchObject({ seats: true, kv: false });
    expect(engineOf('llamacpp').setting({ seats: 8, kvTokens: 65_536 })).toBe('-np 8 -c 65,536');
  });

  it('llama.cpp -c 8192 -np 3: a slot of 2,816 too small for 4K: each of 3 slots needs GGML_PAD(4128, 256) = 4,352', () => {
    const r = result('llamacpp', {}, { launchCommand: 'llama-server -m m.gguf -c 8192 -np 3' });
    const l = serverLimits({ ...r, target: { ...r.target, maxModelLen: 2816, kvCapacityTokens: 8448 } });
    const b = bindingAt(l, 4096, 4, 32);
    expect(needFor(l, b, 4096, 4, 32)).toEqual({ seats: 4, kvTokens: 17_408 }); // 4 × 4,352
  });

  it('llama.cpp from its API alone: the layout is unknown until a shared pool fails within slots × n_ctx', () => {
    const api = {
      maxModelLen: 12_288,
      kvCapacityTokens: 49_152,
      kvCapacityBound: 'inferred' as const,
      seats: 4,
      seatsSource: 'GET /props total_slots',
    };
    const quiet = serverLimits(result('llamacpp', api, { decode: [met(4096, 1), met(4096, 2)] }));
    expect(quiet).toMatchObject({ unknown: ['layout'], kvTokens: 49_152 });
    expect(quiet.layout).toBeUndefined();
    // 4 users × 4K: 16,512 tokens fit 4 split slots of 12,288 but not one pool of 12,288
    const b = bindingAt(quiet, 4096, 4, 32);
    expect(b).toMatchObject({ kv: undefined, readings: { split: 49_152, unified: 12_288 } });

    const full: DecodeCell = {
      ...emptyCell(4096, 4, 'Failed'),
      errors: { stream_error_event: 12 },
      serverErrors: [
        { message: 'Context size has been exceeded.', count: 12, kind: 'stream_error_event', status: 500 },
      ],
    };
    const r = result('llamacpp', api, { decode: [met(4096, 1), met(4096, 2), full] });
    // 4 × 4,096 = 16,384 ≤ 4 × 12,288 = 49,152: split slots would have held the prompts
    expect(provenShared(r, engineOf('llamacpp'), 4, 12_288)?.count).toBe(12);
    const proved = serverLimits(r);
    expect(proved).toMatchObject({ layout: 'unified', kvTokens: 12_288, kvExact: true, unknown: [] });
    // 16 users × 16K = 262,144 > 49,152: the same words prove nothing
    const far = { ...full, contextTokens: 16_384, concurrency: 16 };
    expect(provenShared({ ...r, decode: [far] }, engineOf('llamacpp'), 4, 12_288)).toBeUndefined();

    const a = answerOf(r);
    expect(a.contexts[0]!.reason).toMatchObject({
      kind: 'kv',
      need: { kvTokens: 16_512 },
      setting: '-c 16,512',
    });
  });

  it('Ollama: its KV is unknown unless --kv-capacity states it', () => {
    const l = serverLimits(result('ollama', { maxModelLen: 8192 }));
    expect(l.unknown).toEqual(['kv']);
    expect(bindingAt({ ...l, seats: 4 }, 1024, 8, 32)).toMatchObject({ seats: true, kv: undefined });
    const given = serverLimits(
      result('ollama', { maxModelLen: 8192, kvCapacityTokens: 32_768, kvCapacitySource: '--kv-capacity' }),
    );
    expect(given.unknown).toEqual([]);
    // 8 contexts of 8,192 = 65,536 > 32,768; 4 of them fit
    expect(bindingAt({ ...given, layout: 'per-request' }, 1024, 8, 32).kv).toBe(true);
    expect(bindingAt({ ...given, layout: 'per-request' }, 1024, 4, 32).kv).toBe(false);
  });

  it('a level skipped on a KV figure that is only a lower bound leaves the capacity "at least"', () => {
    const r = result(
      'llamacpp',
      { maxModelLen: 32_768, kvCapacityTokens: 32_768, kvCapacityBound: 'lower-bound' },
      { decode: [met(8192, 1), met(8192, 2), emptyCell(8192, 4, 'Over capacity')] },
    );
    const c = answerOf(r).contexts[0]!;
    expect(c.reason).toMatchObject({ kind: 'kv', capacityAtLeast: true });
    expect(capacityPhrase(c)).toBe('at least 2 users');
  });
});

describe('the seats a run saw, at any context (the demo: vLLM whose seats no launch command states)', () => {
  // vLLM, KV 65,536 tokens, answers up to 512 (profiles/demo.yaml): 1K × 16 and 2K × 16 queue behind 8 seats (the
  // client saw at most 8 streaming; the server's running gauge read 8); 4K × 16 and 8K × 8 are Over capacity.
  const queued = (C: number, o: Partial<DecodeCell>): DecodeCell => ({
    ...emptyCell(C, 16, 'Requests queued'),
    perRequestTokensPerS: 80,
    totalTokensPerS: 640,
    ttftMs: 2400,
    ...o,
  });
  const ceiling = {
    queued: true,
    referenceTtftMs: 20,
    referenceFrom: 'the ×8 cell',
    avgPastReference: 7.6,
    avgStreaming: 8,
    peakStreaming: 8,
    nearPeakShare: 1,
    maxWaitMs: 2900,
  };
  const running8 = [0, 1, 2, 3].map((i) => ({ tMs: i * 250, running: 8, waiting: 8, kvUsage: 0.6 }));
  const demo = (extra: DecodeCell[] = [], target: Partial<Target> = {}) =>
    result(
      'vllm',
      { maxModelLen: 16_384, kvCapacityTokens: 65_536, kvCapacityBound: 'exact', ...target },
      {
        config: { ...syntheticResult().config, maxOutput: 512 },
        decode: [
          ...[1, 4, 8].flatMap((n) => [met(1024, n), met(2048, n), met(4096, n)]),
          queued(1024, { clientQueue: ceiling }),
          queued(2048, { serverSamples: running8 }),
          emptyCell(4096, 16, 'Over capacity'),
          met(8192, 1),
          met(8192, 4),
          emptyCell(8192, 8, 'Over capacity'),
          ...extra,
        ],
      },
    );

  it('8 seats seen at 1K and 2K bind at 4K × 16 with the KV cache: both named, both changed', () => {
    const r = demo();
    expect(serverLimits(r)).toMatchObject({
      seats: 8,
      seatsSeen: true,
      seatsSource: 'seen in this run: Requests queued at 1K × 16 and 2K × 16',
    });
    const a = answerOf(r);
    const at = (C: number) => a.contexts.find((c) => c.contextTokens === C)!.reason;
    // 16 × (4,096 + 512) = 73,728 > 65,536, and 16 > 8 seats
    expect(at(4096)).toMatchObject({
      kind: 'seats-kv',
      users: 16,
      seats: 8,
      short: 'about 8 seats and the KV cache both bind at 16 users',
      need: { seats: 16, kvTokens: 73_728 },
      setting: '--max-num-seqs 16 and a KV cache of 73,728 tokens (--gpu-memory-utilization)',
      change:
        'vLLM: --max-num-seqs 16 and a KV cache of 73,728 tokens (--gpu-memory-utilization) together (one alone ' +
        'does not do it: more KV cache runs no more at once, more seats do not fit)',
    });
    // 8 × (8,192 + 512) = 69,632 > 65,536, and 8 users are within the 8 seats: the KV cache alone
    expect(at(8192)).toMatchObject({ kind: 'kv', users: 8, need: { kvTokens: 69_632 } });
    expect(at(1024)).toMatchObject({ kind: 'queue', seats: 8, setting: '--max-num-seqs' });
  });

  it('the seats the server states win; a queue for KV room and a cell above them running free say nothing of seats', () => {
    expect(serverLimits(demo([], { seats: 32, seatsSource: 'GET /server_info' }))).toMatchObject({
      seats: 32,
      seatsSource: 'GET /server_info',
    });
    expect(serverLimits(demo()).seatsSeen).toBe(true);
    // 8K × 8 queued with 6 running and the KV usage gauge at 97% (6 × (8,192 + 256) = 50,688 tokens, 77% of the
    // pool, half-way through their answers): a queue for KV room, not 6 seats
    const kvRoom: DecodeCell = {
      ...queued(8192, {
        serverSamples: [0, 1, 2].map((i) => ({ tMs: i * 250, running: 6, waiting: 2, kvUsage: 0.97 })),
      }),
      concurrency: 8,
    };
    const only8K = result(
      'vllm',
      { maxModelLen: 16_384, kvCapacityTokens: 65_536, kvCapacityBound: 'exact' },
      {
        config: { ...syntheticResult().config, maxOutput: 512 },
        decode: [met(8192, 1), met(8192, 4), kvRoom],
      },
    );
    expect(serverLimits(only8K).seats).toBeUndefined();
    // the same cell with the gauge at 60%: 6 seats, about
    const seats6 = {
      ...only8K,
      decode: [
        met(8192, 1),
        met(8192, 4),
        { ...kvRoom, serverSamples: running8.map((x) => ({ ...x, running: 6 })) },
      ],
    };
    expect(serverLimits(seats6)).toMatchObject({ seats: 6, seatsSeen: true });
    // 1K × 12 ran all 12 without a queue: the 8 seen at 16 were not the server's seats
    const free = demo([met(1024, 12)]);
    expect(serverLimits(free).seats).toBeUndefined();
    expect(answerOf(free).contexts.find((c) => c.contextTokens === 4096)!.reason.kind).toBe('kv');
  });
});

describe("failed requests in the server's own words", () => {
  const failed = (message: string, status: number): DecodeCell => ({
    ...emptyCell(1024, 8, 'Failed'),
    errors: { http_status: 5 },
    serverErrors: [{ message, count: 5, kind: 'http_status', status }],
  });

  it('TGI refusing with 429 "Model is overloaded": raise --max-concurrent-requests', () => {
    const r = result('tgi', {}, { decode: [met(1024, 4), failed('Model is overloaded', 429)] });
    const reason = answerOf(r).contexts[0]!.reason;
    expect(reason.text).toBe(
      'At 8 users the server failed requests (5 http_status: the server said "Model is overloaded" ×5).',
    );
    expect(reason.change).toBe('TGI: --max-concurrent-requests refuses requests beyond it; raise it');
  });

  it('Ollama refusing with 503 when its queue is full: its queue named', () => {
    const msg = 'server busy, please try again.  maximum pending requests exceeded';
    const r = result('ollama', {}, { decode: [met(1024, 4), failed(msg, 503)] });
    expect(answerOf(r).contexts[0]!.reason.change).toMatch(/^Ollama: its queue is full; OLLAMA_NUM_PARALLEL/);
  });

  it("any other failure: the server's words, not a pointer to requests.jsonl", () => {
    const r = result('vllm', {}, { decode: [met(1024, 4), failed('CUDA out of memory', 500)] });
    const reason = answerOf(r).contexts[0]!.reason;
    expect(reason.text).toContain('the server said "CUDA out of memory" ×5');
    expect(reason.change).toBe("the server's words above, and its log, name the cause");
  });
});
