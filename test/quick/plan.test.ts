import { describe, expect, it } from 'vitest';
import { answerOf, type Answer } from '../../src/answer/answer.js';
import { contextCapacity } from '../../src/answer/capacity.js';
import { emptyCell } from '../../src/results/empty-cell.js';
import { DEFAULT_SERVICE_LEVEL, type SloVerdict } from '../../src/stats/slo.js';
import { QUICK_MAX_LINES, quickAnswerLines } from '../../src/quick/lines.js';
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
    expect(p.maxOutput).toBe(Math.round((100 * p.duration) / 8 / 16) * 16);
  });

  it('a slow CPU server: fewer levels, short answers, one short context', () => {
    const p = sizeQuickPlan({ tokensPerS: 8, ttftMs: 4000, promptTokens: 1024 }, { maxModelLen: 8192 });
    expect(p.contexts).toEqual([4096]);
    expect(p.maxOutput).toBe(16);
    expect(p.concurrency[0]).toBe(1);
    expect(p.estimateS).toBeLessThanOrEqual(75);
  });

  it('a small model window keeps contexts inside it', () => {
    expect(
      sizeQuickPlan({ tokensPerS: 50, ttftMs: 100, promptTokens: 1024 }, { maxModelLen: 4096 }).contexts,
    ).toEqual([1024]);
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
