import { describe, expect, it } from 'vitest';
import { answerOf, type Answer } from '../../src/answer/answer.js';
import { contextCapacity } from '../../src/answer/capacity.js';
import { emptyCell } from '../../src/results/empty-cell.js';
import { DEFAULT_SERVICE_LEVEL, type SloVerdict } from '../../src/stats/slo.js';
import { engineSettings } from '../../src/engines/index.js';
import { optionsFor, type CommandName } from '../../src/config/options.js';
import type { ServiceLevel } from '../../src/results/schema.js';
import { parseServiceLevel } from '../../src/stats/slo.js';
import { QUICK_MAX_LINES, quickAnswerLines, quickFoundLines, quickPlanLines } from '../../src/quick/lines.js';
import { sizeQuickPlan } from '../../src/quick/size.js';
import { SEEDS, seedResult } from '../report/seeds.js';

describe('quick: the plan from the server own speed', () => {
  it('a fast GPU server: the whole ladder and a long context its prefill affords, in about a minute', () => {
    // 100 tok/s for one user; a 1K prompt's first token in 50 ms (20K tok/s of prefill, a lower bound).
    const p = sizeQuickPlan({ tokensPerS: 100, ttftMs: 50, promptTokens: 1024 }, { maxModelLen: 131_072 });
    expect(p.concurrency).toEqual([1, 2, 4, 8, 16, 32]);
    expect(p.contexts).toEqual([4096]); // 32 slots x 8K = 256K tokens take 13 s of prefill: more than 10 s
    expect(p.estimateS).toBeGreaterThan(45);
    expect(p.estimateS).toBeLessThanOrEqual(65);
    // answers that one user ends 12 times a window (src/quick/size.ts ANSWERS_PER_WINDOW)
    expect(p.maxOutput).toBe(Math.round((100 * p.duration) / 12 / 4) * 4);
    expect(p.perWindow).toBeCloseTo(12, 0);
  });

  it('a slow CPU server: a short context, fewer levels, the shortest answers, said so', () => {
    const p = sizeQuickPlan({ tokensPerS: 8, ttftMs: 4000, promptTokens: 1024 }, { maxModelLen: 8192 });
    expect(p.contexts).toEqual([1024]); // 4K prompts at 256 tok/s would take the whole minute to prefill
    expect(p).toMatchObject({ maxOutput: 16, answers: 'shortest' });
    expect(p.concurrency[0]).toBe(1);
    expect(p.estimateS).toBeLessThanOrEqual(65);
    expect(quickPlanLines(p).join(' ')).toContain('answers of 16 tokens, the shortest quick sends');
  });

  it('a small model window keeps contexts inside it', () => {
    expect(
      sizeQuickPlan({ tokensPerS: 50, ttftMs: 100, promptTokens: 1024 }, { maxModelLen: 4096 }).contexts,
    ).toEqual([1024]);
  });

  // An Ollama-like server: 16 tokens (16s rounded 24 down) made one user end 13 a window against the 8 the docs
  // promised; rounding by 4 below 128 tokens keeps the count near the target.
  it('short answers round by 4 tokens, so one user ends about as many as sized', () => {
    const p = sizeQuickPlan({ tokensPerS: 40, ttftMs: 300, promptTokens: 1024 }, { engine: 'ollama' });
    expect(p.answers).toBe('sized');
    expect(p.maxOutput).toBeLessThan(128);
    expect(p.maxOutput % 4).toBe(0);
    expect(Math.abs(p.perWindow - 12)).toBeLessThan(1.5);
  });

  // The demo's sim: 16 and 32 users at 4K do not fit its 64K-token KV cache and are never run. The plan said
  // "about 60 s" and took 26.
  it('cells over the KV cache are out of the estimate, and the line says which', () => {
    const speed = { tokensPerS: 360, ttftMs: 100, promptTokens: 1024 };
    const fixed = { maxModelLen: 8192, engine: 'vllm', duration: 3, maxOutput: 256 }; // one context: 4K
    const p = sizeQuickPlan(speed, { ...fixed, kvCapacityTokens: 65_536 });
    const all = sizeQuickPlan(speed, fixed);
    expect(p.contexts).toEqual([4096]);
    expect(p.plan.cells.filter((c) => c.status === 'Over capacity').map((c) => c.concurrency)).toEqual([
      16, 32,
    ]);
    // two windows of 3 s and their overhead fewer, and the warm-up of the 24 slots they would have added
    expect(p.estimateS).toBeLessThanOrEqual(all.estimateS - 2 * 3);
    expect(p.estimateS).toBeGreaterThanOrEqual(4 * 3);
    expect(quickPlanLines(p)[0]).toBe(
      `Measuring for about ${p.estimateS} s: 4K × 1–32 users, 16 and 32 over the KV cache.`,
    );
    // sized freely, the windows fill the budget with the cells that run
    const sized = sizeQuickPlan(speed, { maxModelLen: 16_384, kvCapacityTokens: 65_536, engine: 'vllm' });
    expect(sized.estimateS).toBeGreaterThanOrEqual(50);
    expect(sized.estimateS).toBeLessThanOrEqual(62);
  });

  it('flags quick takes fix the levels, window, answers and repeats; the rest is sized', () => {
    const speed = { tokensPerS: 100, ttftMs: 50, promptTokens: 1024 };
    const p = sizeQuickPlan(speed, { concurrency: [16, 32], duration: 20, maxOutput: 64, repeats: 2 });
    expect(p).toMatchObject({
      concurrency: [16, 32],
      duration: 20,
      maxOutput: 64,
      repeats: 2,
      answers: 'given',
    });
    expect(p.estimateS).toBeGreaterThanOrEqual(p.contexts.length * 2 * 2 * 20);
    expect(quickPlanLines(p).join('\n')).toBe(
      `Measuring for about ${p.estimateS} s: 4K × 16 and 32 users.\n` +
        '  20 s windows × 2; answers of 64 tokens (--max-output): one user ends about 31\n' +
        '    a window.',
    );
  });

  it('the plan lines and the found line fit 80 columns', () => {
    const found = quickFoundLines(
      { engine: { name: 'vllm', version: '0.30.0-sim' }, model: 'meta-llama/Llama-3.1-8B-Instruct' },
      'http://127.0.0.1:18431/v1',
      'Found ',
    );
    expect(found[0]).toBe('Found vLLM 0.30.0-sim at http://127.0.0.1:18431/v1, model');
    expect(found[1]).toBe('  meta-llama/Llama-3.1-8B-Instruct');
    const p = sizeQuickPlan(
      { tokensPerS: 360, ttftMs: 100, promptTokens: 1024 },
      { maxModelLen: 16_384, kvCapacityTokens: 65_536, engine: 'vllm' },
    );
    for (const l of [...found, ...quickPlanLines(p)]) expect(l.length, l).toBeLessThanOrEqual(80);
  });
});

describe('quick: the answer in ten lines', () => {
  it('holds eight contexts in at most ten lines of 80 columns, the report path last', () => {
    const lines = quickAnswerLines(answerOf(seedResult(SEEDS[1].id)), {
      report: 'results/20261204-075650-uh8k/report.html',
      result: 'results/20261204-075650-uh8k',
    });
    expect(lines.length).toBeLessThanOrEqual(QUICK_MAX_LINES);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(lines.at(-1)).toBe('Full report: results/20261204-075650-uh8k/report.html');
    expect(lines).toContain('  8K: 4 users at once (511.7 tok/s total)');
  });

  it('names the levels too close to call in the words of every report', () => {
    const verdicts: Array<[number, SloVerdict]> = [
      [8, 'meets'],
      [16, 'too close to call'],
      [32, 'too close to call'],
      [64, 'fails'],
    ];
    const cells = verdicts.map(([n, verdict]) => ({
      cell: { ...emptyCell(4096, n, 'Valid'), totalTokensPerS: 100 * n },
      verdict,
      basis: 'requests' as const,
    }));
    const a: Answer = {
      slo: DEFAULT_SERVICE_LEVEL,
      sloFrom: 'default',
      contexts: [
        {
          ...contextCapacity(4096, cells),
          reason: { kind: 'speed', users: 64, short: 'slow', text: '', change: 'faster GPUs' },
        },
      ],
      basis: 'requests',
      predicted: false,
    };
    expect(quickAnswerLines(a, { report: 'r.html', result: 'r' })).toContain(
      '  4K: 8 users at once (800.0 tok/s total); too close to call at 16 or 32 users',
    );
  });
});

// Every hint quick prints runs where it was printed (issue: "Change: measure more users: --concurrency 8,16" was
// refused by quick): a flag outside a command is one quick takes, or the engine's own setting the line names; a
// command between backticks names only flags its verb takes, and stays whole on its line.
describe('quick: every flag its lines name runs in quick', () => {
  const quickFlags = new Set(optionsFor('quick').map((o) => o.flag.split(' ')[0]!));
  const flagsIn = (text: string) => [...text.matchAll(/(?<![\w-])--[a-z][\w-]*/g)].map((m) => m[0]);
  const levels = [
    undefined,
    'tok/s=5',
    'ttft=100ms',
    'ttft=60s,tok/s=1',
    'tok/s=50,share=99%',
    'tok/s=100',
    'tok/s=15',
  ];

  it('for each seed context and service level: the reasons, what-ifs and the decide line', () => {
    const kinds = new Set<string>();
    const named = new Set<string>();
    for (const seed of SEEDS) {
      const r = seedResult(seed.id);
      const engine = engineSettings(r.engine.name);
      const engineFlags = new Set(
        flagsIn([engine.seats, engine.seatsNote, ...engine.kv, engine.chunk, engine.admission].join(' ')),
      );
      for (const C of [...new Set(r.decode.map((c) => c.contextTokens))]) {
        const one = { ...r, decode: r.decode.filter((c) => c.contextTokens === C) };
        // the same cells judged by 12 requests each, all alike: levels too close to call near the level
        const few = {
          ...one,
          decode: one.decode.map((c) => ({
            ...c,
            windowRequests: {
              ttftMs: Array<number>(12).fill(c.ttftMs ?? 100),
              tokensPerS: Array<number | null>(12).fill(c.perRequestTokensPerS),
            },
          })),
        };
        for (const [result, level] of [one, few].flatMap((x) => levels.map((l) => [x, l] as const))) {
          const a = answerOf(result, level ? (parseServiceLevel(level) as ServiceLevel) : undefined);
          if (a.contexts.some((c) => c.reason.change.includes('`'))) kinds.add('outlier');
          a.contexts.forEach((c) => kinds.add(c.reason.kind));
          const ran = { duration: r.config.duration, repeats: 1, maxOutput: r.config.maxOutput };
          const lines = quickAnswerLines(a, { report: 'r.html', result: 'r' }, [], ran);
          for (const line of lines) {
            const commands = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
            for (const cmd of commands.filter((c) => c.includes('llm-inference-bench'))) {
              const verb = cmd.split(' ')[2] as CommandName;
              const takes = new Set(optionsFor(verb).map((o) => o.flag.split(' ')[0]!));
              for (const f of flagsIn(cmd)) expect(takes.has(f), `${verb} ${f} in ${line}`).toBe(true);
            }
            if (!commands.length) expect(line.length, line).toBeLessThanOrEqual(80);
            const outside = line.replace(/`[^`]*llm-inference-bench[^`]*`/g, '');
            for (const f of flagsIn(outside)) {
              named.add(f);
              expect(quickFlags.has(f) || engineFlags.has(f), `${f} in ${line}`).toBe(true);
            }
          }
        }
      }
    }
    // the hints the issue found refused are among those checked
    for (const f of ['--concurrency', '--max-output', '--slo']) expect(named.has(f), f).toBe(true);
    expect([...kinds]).toEqual(
      expect.arrayContaining(['kv', 'queue', 'ttft', 'speed', 'unmeasured', 'undecided', 'outlier']),
    );
  });
});
