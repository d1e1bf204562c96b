import { describe, expect, it } from 'vitest';
import { answerOf } from '../../src/answer/answer.js';
import { whatIfNotes } from '../../src/answer/what-if.js';
import { quickAnswerLines, QUICK_WIDTH } from '../../src/quick/lines.js';
import type { RunResult } from '../../src/results/schema.js';
import { SLO } from './capacity-rig.js';
import { measureEngine, type EngineCase } from './engine-rig.js';

// The answer on each engine's own rules (src/engines, docs/method.md "Why the limit is there"): per flavor, the sim
// found as a probe finds it and measured in virtual time (./engine-rig.ts). Steps take 10 ms alone, 12.5 ms for 4
// and 20 ms for 8 sequences (100, 80 and 50 tok/s each); answers of 32 tokens; the level asks 40 tok/s and a first
// token within 200 ms for 90% of requests. Every figure below is hand-computed from the settings.
function answer(r: RunResult) {
  const a = answerOf(r, SLO);
  const c = a.contexts[0]!;
  return {
    a,
    capacity: c.capacity?.cell.concurrency,
    atLeast: c.atLeast,
    statuses: c.cells.map((j) => `${j.cell.concurrency} ${j.cell.status}`),
    reason: c.reason,
    whatIf: whatIfNotes(r, a).map((w) => w.text),
  };
}

const llamacpp = (o: Partial<EngineCase> & Pick<EngineCase, 'kvTokens' | 'launch'>): EngineCase => ({
  flavor: 'llamacpp',
  seats: 4,
  contexts: [4096],
  concurrency: [1, 2, 4, 8],
  ...o,
  overrides: { maxModelLen: 32_768, ...o.overrides }, // the model's training context
});

// 1K prompts at 1, 2, 4 and 8 users.
const oneK = (
  flavor: EngineCase['flavor'],
  seats: number,
  kvTokens: number,
  launch: boolean,
): EngineCase => ({
  flavor,
  seats,
  kvTokens,
  contexts: [1024],
  concurrency: [1, 2, 4, 8],
  launch,
});

describe("the answer on each engine's rules (virtual time, sim flavors as probed)", () => {
  it('llama.cpp split -c 32768 -np 4, launch command read: slots and -c both bind at 8 users; the what-if changes both', async () => {
    const s = answer(await measureEngine(llamacpp({ kvTokens: 32_768, launch: true })));
    // 8 × (4,096 + 32) = 33,024 > 32,768, but split slots never run short of KV: each of the 4 holds its own 8,192,
    // so the 8 are run and the 4 beyond the slots wait for one (docs/method.md "Plan").
    expect(s.statuses).toEqual(['1 Valid', '2 Valid', '4 Valid', '8 Requests queued']);
    expect(s.capacity).toBe(4);
    expect(s.reason).toMatchObject({
      kind: 'seats-kv',
      users: 8,
      seats: 4,
      short: '4 slots and the KV cache both bind at 8 users',
      // 8 slots each keeping the 8,192 a slot has now: -c 8 × 8,192
      setting: '-np 8 -c 65,536',
      need: { seats: 8, kvTokens: 65_536 },
    });
    expect(s.reason.text).toMatch(
      /^At 8 users the server ran about 4 at once and the others waited for a first token \(TTFT p90 [\d,]+ ms\): 4 slots, and its KV cache of 32,768 tokens cut into 8 slots gives about 4,096 each, short of 4K \+ 32\.$/,
    );
    expect(s.reason.change).toBe(
      'llama.cpp: -np 8 -c 65,536 together (one alone does not do it: more KV cache runs no more at once, more ' +
        'slots do not fit)',
    );
    expect(s.whatIf).toHaveLength(1);
    expect(s.whatIf[0]).toMatch(
      /^4K with -np 8 -c 65,536: a twin of this run predicts 8 users at [\d.]+ tok\/s each, first token [\d,]+ ms \([\d.,]+ total\), all running at once: meets it \(median request, predicted\)\.$/,
    );
    // The terminal `quick` prints fits 80 columns and names both settings.
    const lines = quickAnswerLines(s.a, { report: 'r/report.html', result: 'r/result.json' }, []);
    expect(lines.filter((l) => l.length > QUICK_WIDTH)).toEqual([]);
    expect(lines.join('\n')).toContain('4 slots and the KV cache both bind at 8 users');
  });

  it('llama.cpp split read from its API alone: 8 users measured queue behind 4 slots; both bind, whichever the layout', async () => {
    const s = answer(await measureEngine(llamacpp({ kvTokens: 32_768, launch: false })));
    // /props: 4 slots × 8,192, read as 32,768 inferred: 8 × 4,128 = 33,024 is over it, so measured as a check.
    expect(s.statuses).toEqual(['1 Valid', '2 Valid', '4 Valid', '8 Requests queued']);
    expect(s.reason).toMatchObject({ kind: 'seats-kv', users: 8, seats: 4, setting: '-np 8 -c 65,536' });
    // Split, 8 slots of 4,096 hold no 4,128; one pool of 8,192 holds no 33,024: both readings agree.
    expect(s.reason.text).toContain(
      'its KV cache is 32,768 tokens if its 4 slots are split, 8,192 if they share one pool.',
    );
    expect(s.reason.text).toContain('Measured: the server did not run them all at once (Requests queued).');
    expect(s.reason.unknown).toBeUndefined();
  });

  it('llama.cpp unified -c 12288 -np 4 --kv-unified read from its API: the run proves the shared pool', async () => {
    const s = answer(
      await measureEngine(llamacpp({ kvTokens: 12_288, overrides: { kvUnified: true }, launch: false })),
    );
    const r = s.a;
    expect(r.contexts[0]!.cells.map((j) => j.cell.status)).toEqual(['Valid', 'Valid', 'Failed', 'Failed']);
    expect(s.capacity).toBe(2); // 2 × 4,128 = 8,256 fit the 12,288 pool; 4 × 4,128 = 16,512 do not
    expect(s.reason).toMatchObject({
      kind: 'kv',
      users: 4,
      short: 'KV cache full at 4 users (one pool the slots share)',
      setting: '-c 16,512',
      need: { kvTokens: 16_512 },
    });
    // 4 × 4,096 = 16,384 is within 4 slots × 12,288 = 49,152: split slots would have held the prompts.
    expect(s.reason.text).toMatch(
      /^At 4 users the server answered "Context size has been exceeded\." \(\d+ requests\), though 4 × 4K is within 4 slots × 12,288: its slots share one KV pool of 12,288 tokens, and 4 users at 4K with answers up to 32 need 16,512\.$/,
    );
    expect(s.reason.change).toBe('llama.cpp: a larger pool (-c 16,512); or shorter answers (--max-output)');
    expect(s.whatIf[0]).toMatch(/^4K with -c 16,512 \(12,288 now\): a twin of this run predicts 4 users at /);
  });

  it('Ollama with its KV unknown: the queue is OLLAMA_NUM_PARALLEL, and the what-if claims at most', async () => {
    const s = answer(await measureEngine(oneK('ollama', 4, 200_000, false)));
    expect(s.statuses).toEqual(['1 Valid', '2 Valid', '4 Valid', '8 Requests queued']);
    expect(s.capacity).toBe(4);
    const unknown =
      "Ollama reports no KV cache: whether its memory holds 8 requests' contexts at once is not known " +
      '(--kv-capacity, the KV cache its memory holds, would tell)';
    expect(s.reason).toMatchObject({ kind: 'queue', users: 8, seats: 4, unknown, need: { seats: 8 } });
    expect(s.reason.text).toMatch(
      /^At 8 users the server ran about 4 at once and the others waited .*\. Ollama reports/,
    );
    expect(s.reason.change).toContain('raise OLLAMA_NUM_PARALLEL (about 4 now)');
    expect(s.reason.change).toMatch(/if the memory holds them$/);
    expect(s.whatIf[0]).toMatch(
      /^1K with OLLAMA_NUM_PARALLEL=8 \(about 4 now\): a twin of this run predicts at most 8 users at .*: meets it \(median request, predicted\), if the limit is what the twin assumes: Ollama reports no KV cache/,
    );
  });

  it('vLLM with its launch command (--max-num-seqs 4, 6,000 tokens of KV): both bind at 8 users', async () => {
    const s = answer(await measureEngine(oneK('vllm', 4, 6000, true)));
    // 4 × (1,024 + 32) = 4,224 fit 6,000; 8 × 1,056 = 8,448 do not
    expect(s.statuses).toEqual(['1 Valid', '2 Valid', '4 Valid', '8 Over capacity']);
    expect(s.reason).toMatchObject({
      kind: 'seats-kv',
      seats: 4,
      short: '4 seats and the KV cache both bind at 8 users',
      need: { seats: 8, kvTokens: 8448 },
    });
    expect(s.reason.text).toContain('The server runs 4 at once (launch command --max-num-seqs 4)');
    expect(s.reason.change).toBe(
      'vLLM: --max-num-seqs 8 and a KV cache of 8,448 tokens (--gpu-memory-utilization) together (one alone does ' +
        'not do it: more KV cache runs no more at once, more seats do not fit)',
    );
    expect(s.whatIf[0]).toMatch(
      /^1K with --max-num-seqs 8 and a KV cache of 8,448 tokens \(--gpu-memory-utilization\): a twin of this run predicts 8 users at .* all running at once: meets it/,
    );
  });

  it('SGLang states its seats (max_running_requests 4): requests queue at 8', async () => {
    const s = answer(await measureEngine(oneK('sglang', 4, 200_000, false)));
    expect(s.statuses).toEqual(['1 Valid', '2 Valid', '4 Valid', '8 Requests queued']);
    expect(s.reason).toMatchObject({ kind: 'queue', seats: 4, setting: '--max-running-requests' });
    expect(s.reason.change).toBe('SGLang: raise --max-running-requests (about 4 now)');
    expect(s.whatIf[0]).toMatch(
      /^1K with --max-running-requests 8 \(about 4 now\): a twin of this run predicts 8 users at .* all running at once: meets it \(median request, predicted\)\.$/,
    );
  });

  it('TGI with a 6,000-token budget: the budget binds at 8 users', async () => {
    const s = answer(await measureEngine(oneK('tgi', 16, 6000, false)));
    expect(s.statuses).toEqual(['1 Valid', '2 Valid', '4 Valid', '8 Over capacity']);
    expect(s.reason).toMatchObject({ kind: 'kv', users: 8, need: { kvTokens: 8448 } });
    expect(s.reason.text).toBe(
      '8 users at 1K with answers up to 32 need 8,448 tokens of KV cache; the server holds 6,000. Not run.',
    );
    expect(s.reason.change).toContain('--max-batch-total-tokens');
    expect(s.whatIf[0]).toMatch(
      /^1K with --max-batch-total-tokens 8,448 \(6,000 now\): a twin of this run predicts 8 users/,
    );
  });
});
