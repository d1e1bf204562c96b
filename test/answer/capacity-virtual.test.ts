import { describe, expect, it } from 'vitest';
import { answerOf } from '../../src/answer/answer.js';
import { whatIfNotes } from '../../src/answer/what-if.js';
import type { RunResult } from '../../src/results/schema.js';
import { measureCapacity, SLO } from './capacity-rig.js';

// The capacity under a service level and the reason of its limit, through the real runner
// on the sim's flavors in virtual time, where the seats, the KV cache and the per-user speed are set by hand
// (./capacity-rig.ts).
function summary(r: RunResult) {
  const a = answerOf(r, SLO);
  const whatIf = whatIfNotes(r, a).map((w) => w.text);
  const c = a.contexts[0]!;
  return {
    verdicts: c.cells.map((j) => `${j.cell.concurrency} ${j.cell.status} ${j.verdict}`),
    capacity: c.capacity?.cell.concurrency,
    reason: c.reason.kind,
    users: c.reason.users,
    seats: c.reason.seats,
    setting: c.reason.setting,
    change: c.reason.change,
    whatIf,
  };
}

describe('capacity under a service level and why it stops there (virtual time, sim flavors)', () => {
  it('vLLM, per-user speed: 8 users at 50 tok/s meet 40 tok/s, 16 at 25 do not', async () => {
    const s = summary((await measureCapacity('vllm', 16, 200_000)).result);
    expect(s.verdicts).toEqual([
      '1 Valid meets',
      '2 Valid meets',
      '4 Valid meets',
      '8 Valid meets',
      '16 Valid fails',
    ]);
    expect(s).toMatchObject({ capacity: 8, reason: 'speed', users: 16 });
    expect(s.change).toContain('no setting raises it');
    expect(s.whatIf).toEqual([]); // no setting to try
  });

  it.each([
    ['vllm', '--max-num-seqs', '--max-num-seqs 8', ''],
    ['llamacpp', '-np (--parallel)', '-np 8', ''],
    // Ollama reports no KV cache: the twin's 8 users are the most the change could give (src/answer/limits.ts)
    ['ollama', 'OLLAMA_NUM_PARALLEL', 'OLLAMA_NUM_PARALLEL=8', 'at most '],
  ] as const)(
    '%s, queue-bound: 4 seats take 4 users; at 8 requests wait and the seats setting is named',
    async (flavor, setting, raised, bound) => {
      const s = summary((await measureCapacity(flavor, 4, 200_000)).result);
      expect(s.verdicts).toEqual([
        '1 Valid meets',
        '2 Valid meets',
        '4 Valid meets',
        '8 Requests queued fails',
        '16 Requests queued fails',
      ]);
      expect(s).toMatchObject({ capacity: 4, reason: 'queue', users: 8, seats: 4, setting });
      expect(s.change).toContain(`raise ${setting} (about 4 now)`);
      // The twin of the run, with the seats raised to 8: all 8 running at once, marked as a prediction.
      expect(s.whatIf).toHaveLength(1);
      expect(s.whatIf[0]).toMatch(
        new RegExp(
          `^1K with ${raised} \\(about 4 now\\): a twin of this run predicts ${bound}8 users at .* all running at once: .*\\(median request, predicted\\)(, if .*)?\\.$`,
        ),
      );
    },
  );

  it.each([
    // vLLM: 6,000 tokens hold 4 x (1K + 32) = 4,224 but not 8 x 1,056 = 8,448.
    ['vllm', 16, 6000, 4, 8, '--gpu-memory-utilization'],
    // llama.cpp: -c 10,240 over 8 slots of 1,280 holds 8 x 1,056 but not 16.
    ['llamacpp', 8, 10_240, 8, 16, '-c (--ctx-size)'],
  ] as const)(
    '%s, KV-bound: the first level over the KV cache is the limit',
    async (flavor, seats, kv, capacity, over, setting) => {
      const s = summary((await measureCapacity(flavor, seats, kv)).result);
      expect(s.verdicts.at(-1)).toBe('16 Over capacity fails');
      expect(s).toMatchObject({ capacity, reason: 'kv', users: over, setting });
      expect(s.change).toContain(setting);
    },
  );

  it('vLLM with both limits one level short: the seats seen at 1K bind at 2K with the KV cache, and the what-if changes both', async () => {
    // 4 seats; 10,000 tokens of KV hold 8 x (1K + 32) = 8,448 but not 8 x (2K + 32) = 16,640. 1K x 8 queues for a
    // seat: the server runs 4 at once, at any context (4 x (1K + 16) = 4,160 is 42% of the KV: not a queue for KV
    // room). 2K x 8 is Over capacity, and 8 users there need 8 seats as well: a KV cache of 16,640 tokens alone
    // would leave 4 of them waiting a whole answer (0.4 s) against 200 ms (docs/method.md "Why the limit is there").
    const { result } = await measureCapacity('vllm', 4, 10_000, [1024, 2048]);
    const a = answerOf(result, SLO);
    expect(a.contexts.map((c) => [c.capacity?.cell.concurrency, c.reason.kind])).toEqual([
      [4, 'queue'],
      [4, 'seats-kv'],
    ]);
    const r = a.contexts[1]!.reason;
    expect(r).toMatchObject({
      users: 8,
      seats: 4,
      short: 'about 4 seats and the KV cache both bind at 8 users',
      need: { seats: 8, kvTokens: 16_640 },
      setting: '--max-num-seqs 8 and a KV cache of 16,640 tokens (--gpu-memory-utilization)',
    });
    expect(r.text).toBe(
      '8 users at 2K need 8 running at once and 16,640 tokens of KV cache (answers up to 32). The server runs about ' +
        '4 at once (seen in this run: Requests queued at 1K × 8): a request beyond them waits for one to finish, ' +
        'whatever the KV cache; and its KV cache holds 10,000 tokens. Not run.',
    );
    const whatIf = whatIfNotes(result, a).map((w) => w.text);
    // The what-if tries the reason's change, both settings at once: all 8 run and meet it.
    expect(whatIf[1]).toMatch(
      /^2K with --max-num-seqs 8 and a KV cache of 16,640 tokens \(--gpu-memory-utilization\): a twin of this run predicts 8 users at [\d.]+ tok\/s each, first token [\d,]+ ms \([\d.,]+ total\), all running at once: meets it \(median request, predicted\)\.$/,
    );
  });
});
