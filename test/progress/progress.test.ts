import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { emptyCell } from '../../src/results/empty-cell.js';
import { chooseProgress, liveProgress, plainProgress, silentProgress } from '../../src/progress/index.js';
import { estimateFor } from '../helpers/estimate.js';
import { countCells } from '../../src/plan/counts.js';
import { buildPlan } from '../../src/plan/plan.js';
import type { DecodeCell } from '../../src/results/schema.js';

// 16K x2 needs 2 x (16K + 1K) = 34,816 tokens > 30,000: Over capacity; the other three are measured.
const plan = buildPlan({
  contexts: [8192, 16384],
  concurrency: [1, 2],
  kvCapacityTokens: 30_000,
  maxOutput: 1024,
});
const start = {
  runId: 'r',
  dir: '/tmp/r',
  model: 'm',
  contexts: [8192, 16384],
  concurrency: [1, 2],
  counts: countCells(plan),
  prefillTotal: 2,
  estimateS: 120,
  ...estimateFor([8192, 16384], [1, 2]),
  done: [] as DecodeCell[],
  resumed: false,
};
const valid: DecodeCell = {
  ...emptyCell(8192, 1, 'Valid'),
  totalTokensPerS: 108.1,
  perRequestTokensPerS: 108.2,
  ttftMs: 114,
  outputTokens: 3244,
  measuredS: 30,
};

describe('progress', () => {
  it('without a TTY prints one plain line per finished cell', () => {
    const lines: string[] = [];
    const p = plainProgress((l) => lines.push(l));
    p.start(start);
    p.phase('warm-up 8K x1');
    const over = emptyCell(16384, 2, 'Over capacity');
    const failed = { ...emptyCell(8192, 2, 'Failed'), error: 'no tokens arrived inside the window' };
    p.cellDone(valid, countCells(plan, [valid]));
    p.cellDone(over, countCells(plan, [valid, over]));
    p.cellDone(failed, countCells(plan, [valid, over, failed]));
    expect(lines[0]).toBe(
      'run r: m, 2 contexts x 2 concurrency levels = 4 cells: 3 to measure, 1 skipped as Over capacity; about 2 min; writing /tmp/r',
    );
    expect(lines[1]).toBe(
      'decode 8K x1: Valid, 108.1 tok/s total, 108.2 tok/s per request, TTFT 114 ms, 3,244 tokens in 30.0 s [1/3 measured, ETA ' +
        lines[1]!.split('ETA ')[1],
    );
    expect(lines[2]).toMatch(/^decode 16K x2: Over capacity \[1\/3 measured/);
    expect(lines[3]).toMatch(/^decode 8K x2: Failed \(no tokens arrived inside the window\) \[2\/3 measured/);
  });

  it('on a TTY redraws the matrix with the current phase and ETA', () => {
    const stream = Object.assign(new PassThrough(), {
      isTTY: true,
      columns: 100,
      rows: 40,
    }) as unknown as NodeJS.WriteStream;
    let out = '';
    (stream as unknown as PassThrough).on('data', (d: Buffer) => (out += d.toString()));
    const p = liveProgress(stream);
    p.start(start);
    p.phase('decode 8K x1: ramp and 30 s window');
    p.cellDone(valid, countCells(plan, [valid]));
    p.finish('done');
    expect(out).toContain('decode 8K x1: ramp and 30 s window');
    expect(out).toMatch(/8K\s+108\.1\s+·/);
    expect(out).toContain('1/3 measured');
    expect(out).toContain('done');
  });

  it('is silent with --quiet', () => {
    expect(chooseProgress({ quiet: true })).toBe(silentProgress);
  });
});
