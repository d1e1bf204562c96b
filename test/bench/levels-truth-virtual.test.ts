import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StreamFn } from '../../src/bench/drive/context.js';
import { BenchRun } from '../../src/bench/run.js';
import type { RequestLine } from '../../src/results/request-line.js';
import type { LoadLevel, RunResult } from '../../src/results/schema.js';
import { outputTokenId, renderChat, tokenIds, type ChatMessage } from '../../src/sim/tokenizer.js';
import type { TruthRecord } from '../../src/sim/truth.js';
import { mooncakeTrace } from '../helpers/mooncake-trace.js';
import { predictBlockCache, type ServedRequest } from '../helpers/prefix-cache-predict.js';
import { referenceLevel } from '../helpers/reference-level.js';
import {
  memoryStream,
  runVirtual,
  virtualRig,
  virtualSettings,
  type VirtualRunOptions,
} from './virtual-run.js';
import type { RunSettings } from '../../src/bench/settings.js';

// A level's figures and the prefix cache's hits against the sim's truth log (docs/workloads.md "Figures of a load level"), through the
// whole runner in virtual time: goodput and percentiles recomputed from what the server did, a Mooncake trace's
// prompts and cache hits, a conversation's cached context.

const out = () => mkdtempSync(join(tmpdir(), 'levels-truth-'));
const lines = (dir: string): RequestLine[] =>
  readFileSync(join(dir, 'requests.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RequestLine);

// A run with every request body kept by its id (the text the sim tokenized).
async function runKeeping(settings: RunSettings, o: VirtualRunOptions) {
  const rig = virtualRig(o);
  const inner = memoryStream(rig.sim, rig.clock);
  const bodies = new Map<string, Record<string, unknown>>();
  const stream: StreamFn = (opts) => {
    bodies.set(opts.requestId!, opts.body);
    return inner(opts);
  };
  const run = new BenchRun(settings, { ...rig.deps, stream });
  const outcome = await rig.drive(run.start());
  return { sim: rig.sim, bodies, result: outcome.result, dir: outcome.dir };
}

describe('a level against the truth log', () => {
  it('goodput, offered and achieved rates, TTFT and E2E percentiles equal those recomputed from the truth', async () => {
    // Four seats near saturation: requests queue, so TTFT spreads across the service level's 50 ms.
    const slo = { ttftMs: 50, tokensPerS: 100, share: 0.9 };
    const r = await runVirtual(
      virtualSettings(out(), {
        contexts: [512],
        rates: [52],
        duration: 20,
        warmup: 5,
        maxOutput: 32,
        slo,
      }),
      { sim: { overrides: { maxNumSeqs: 4, reasoningTokens: 0 } } },
    );
    if (r.error) throw r.error;
    const level = r.result.levels![0]!;
    const ref = referenceLevel(r.sim.truth.all(), level.windowOpenMs, level.windowCloseMs, slo);
    expect(ref.arrived).toBeGreaterThan(900);
    expect(level.requests.arrived).toBe(ref.arrived);
    expect(level.requests.completed).toBe(ref.completed);
    expect(level.offeredRate).toBeCloseTo(ref.offeredRate, 9);
    expect(level.achievedRate).toBeCloseTo(ref.achievedRate, 9);
    expect(level.goodput!).toBeCloseTo(ref.goodput, 9);
    // The level is neither all met nor all missed: the comparison says something.
    expect(ref.met / ref.arrived).toBeGreaterThan(0.2);
    expect(ref.met / ref.arrived).toBeLessThan(0.95);
    for (const q of ['p50', 'p90', 'p99'] as const) {
      expect(level.ttftMs[q]!).toBeCloseTo(ref.ttftMs[q]!, 6);
      expect(level.e2eMs[q]!).toBeCloseTo(ref.e2eMs[q]!, 6);
    }
    expect(level.ttftMs.p99!).toBeGreaterThan(2 * level.ttftMs.p50!); // a queue's tail
    expect(level.status).toBe('Requests queued');
  });
});

// A Mooncake-format trace replayed with --trace: every prompt its blocks, sized to input_length.
describe('a Mooncake trace replayed through the runner', () => {
  const BS = 16; // the sim's KV block
  // Half a second apart: every request ends before the next arrives (the predictor's rule, checked below).
  const trace = mooncakeTrace({ requests: 300, block: 512, seed: 11 });
  const rows = trace.rows.map((row, i) => ({ ...row, timestamp: i * 500 }));
  const file = join(out(), 'trace.jsonl');
  writeFileSync(file, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const blocksOf = (t: TruthRecord) => Math.ceil((t.promptTokens + t.outputTokens) / BS);

  // The served requests in arrival order as the predictor takes them: the prompt's token ids as the sim tokenized
  // the chat (its template included), the words it generated, ended at the cap.
  const served = (
    bodies: Map<string, Record<string, unknown>>,
    truth: readonly TruthRecord[],
  ): ServedRequest[] =>
    truth.map((t) => {
      const body = bodies.get(t.requestId!)!;
      const prompt = Array.from(tokenIds(renderChat(body.messages as ChatMessage[])));
      const output = Array.from({ length: t.outputTokens }, (_, j) => outputTokenId(j, 0));
      return { prompt, output, finish: 'length' };
    });

  async function replay(kvBlocks?: number) {
    const settings = virtualSettings(out(), {
      trace: file,
      warmup: 0,
      maxOutput: 4096,
    });
    const r = await runKeeping(settings, {
      sim: {
        overrides: {
          reasoningTokens: 0,
          promptTokensDetails: true,
          ...(kvBlocks ? { kvCapacityTokens: kvBlocks * BS, maxModelLen: kvBlocks * BS } : {}),
        },
      },
    });
    const level = r.result.levels![0]!;
    const mine = new Set(
      lines(r.dir)
        .filter((l) => l.level === level.key)
        .map((l) => l.requestId),
    );
    const truth = r.sim.truth
      .all()
      .filter((t) => mine.has(t.requestId!))
      .sort((a, b) => a.arrivalMs - b.arrivalMs);
    return { ...r, level, truth };
  }

  it('prompts within 1% of input_length; hits as every block seen before when the pool holds everything', async () => {
    const r = await replay();
    expect(r.level.key).toBe(`mooncake:file=${file},block=512@trace`);
    expect(r.truth).toHaveLength(300);
    // One at a time: each request arrived after the one before it ended.
    r.truth.forEach((t, i) => i && expect(t.arrivalMs).toBeGreaterThan(r.truth[i - 1]!.endMs));
    const byLine = r.truth.map((t, i) => [t, rows[i]!] as const);
    for (const [t, row] of byLine) {
      expect(Math.abs(t.promptTokens - row.input_length)).toBeLessThanOrEqual(0.01 * row.input_length);
      expect(t.outputTokens).toBe(row.output_length);
    }
    const want = predictBlockCache(served(r.bodies, r.truth), {
      blockSize: BS,
      blocks: r.truth.reduce((a, t) => a + blocksOf(t), 0), // room for every block of every request
    });
    expect(r.truth.map((t) => t.cachedTokens)).toEqual(want);
    expect(want.filter((h) => h > 512).length).toBeGreaterThan(100); // the trace's reuse, not the template's
    // The level's served hits are the server's usage, which is the truth; beside them, the workload's count.
    expect(r.level.cache).toMatchObject({ source: 'usage', servedTokens: want.reduce((a, b) => a + b, 0) });
    expect(r.level.cache!.expectedTokens).toBeGreaterThan(0.9 * r.level.cache!.servedTokens!);
  });

  it('a pool too small for the trace serves the LRU-predicted hits, fewer than all', async () => {
    const all = await replay();
    const need = Math.max(...all.truth.map(blocksOf));
    const blocks = need + 60;
    const r = await replay(blocks);
    const want = predictBlockCache(served(r.bodies, r.truth), { blockSize: BS, blocks });
    expect(r.truth.map((t) => t.cachedTokens)).toEqual(want);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(want)).toBeLessThan(0.8 * sum(all.truth.map((t) => t.cachedTokens)));
    expect(want.filter((h) => h > 512).length).toBeGreaterThan(15);
  });
});

describe('multi-turn conversations', () => {
  it("each turn's cached tokens are the previous turn's context: its prompt and answer less the answer's last token, in whole blocks", async () => {
    const r = await runKeeping(
      virtualSettings(out(), {
        workload: {
          kind: 'multi-turn',
          turns: 4,
          think: { dist: 'const', ms: 100 },
          system: 200,
          message: 150,
        },
        rates: [2],
        duration: 10,
        warmup: 0,
        maxOutput: 40,
      }),
      { sim: { overrides: { reasoningTokens: 0, promptTokensDetails: true } } },
    );
    const level: LoadLevel = r.result.levels![0]!;
    const truth = new Map(r.sim.truth.all().map((t) => [t.requestId!, t]));
    const turns = lines(r.dir).filter((l) => l.level === level.key && l.status === 'ok');
    const bySession = new Map<number, RequestLine[]>();
    for (const l of turns) bySession.set(l.session!, [...(bySession.get(l.session!) ?? []), l]);
    let checked = 0;
    for (const conv of bySession.values()) {
      conv.sort((a, b) => a.turn! - b.turn!);
      for (let i = 1; i < conv.length; i++) {
        const prev = truth.get(conv[i - 1]!.requestId)!;
        const now = truth.get(conv[i]!.requestId)!;
        // The previous turn ended at its cap: its last token never reached the cache.
        expect(prev.reason).toBe('length');
        const context = prev.promptTokens + prev.outputTokens - 1;
        expect(now.cachedTokens).toBe(Math.floor(context / 16) * 16);
        expect(conv[i]!.cachedTokens).toBe(now.cachedTokens); // the server's usage said it
        // The workload's count (content tokens: no template) less the cap's last token, never above the hit.
        expect(conv[i]!.cacheableTokens).toBe(200 + i * (150 + 40) - 1);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(30);
    const result: RunResult = r.result;
    expect(result.config.workload).toMatchObject({ kind: 'multi-turn', turns: 4 });
  });
});
