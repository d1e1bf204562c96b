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
  overCapacity: [],
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
    // 80 columns: a longer line continues two spaces in, the progress in brackets whole on the last line.
    expect(lines[0]).toBe(
      'run r: m, 2 contexts x 2 concurrency levels = 4 cells: 3 to measure, 1 skipped\n' +
        '  as Over capacity; about 2 min; writing /tmp/r',
    );
    expect(lines[1]).toMatch(
      /^decode 8K x1: Valid, 108\.1 tok\/s total, 108\.2 tok\/s per request, TTFT 114 ms,\n {2}3,244 tokens in 30\.0 s \[1\/3 measured, ETA \d+ (s|min)\]$/,
    );
    expect(lines[2]).toMatch(/^decode 16K x2: Over capacity \[1\/3 measured, ETA [^\]]+\]$/);
    expect(lines[3]).toMatch(
      /^decode 8K x2: Failed \(no tokens arrived inside the window\)(\n {2}| )\[2\/3 measured, ETA [^\]]+\]$/,
    );
    for (const l of lines.join('\n').split('\n')) expect(l.length, l).toBeLessThanOrEqual(80);
  });

  it('keeps the progress in brackets whole when it does not fit the last line', () => {
    const lines: string[] = [];
    const p = plainProgress((l) => lines.push(l), 60);
    p.start(start);
    p.cellDone({ ...valid, contextTokens: 1_048_576, outputTokens: 123_456_789 }, countCells(plan, [valid]));
    const out = lines[1]!.split('\n');
    expect(out.every((l) => l.length <= 60)).toBe(true);
    expect(out.at(-1)).toMatch(/^ {2}(\S.* )?\[1\/3 measured, ETA [^\]]+\]$/);
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

  it('on a TTY wraps the lines that scroll above the matrix at words, to the width', () => {
    const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 60, rows: 40 });
    let out = '';
    stream.on('data', (d: Buffer) => (out += d.toString()));
    const p = liveProgress(stream as unknown as NodeJS.WriteStream);
    p.start(start);
    p.warn('prefill 1K: a repeat differs from the median by more than 25% (flagged as outlier)');
    p.finish('done');
    const text = out
      .split(String.fromCharCode(27))
      .map((s, i) => (i ? s.replace(/^\[[0-9;]*[A-Za-z]/, '') : s))
      .join('')
      .replace(/\r/g, '');
    expect(text).toContain(
      'warning: prefill 1K: a repeat differs from the median by\n  more than 25% (flagged as outlier)\n',
    );
  });

  it('is silent with --quiet', () => {
    expect(chooseProgress({ quiet: true })).toBe(silentProgress);
  });
});

describe('the start line of a run with load levels', () => {
  it('counts the levels and the search, and says the drain the estimate leaves out', async () => {
    const { startLine } = await import('../../src/progress/lines.js');
    const line = startLine({
      ...start,
      contexts: [1024],
      concurrency: [],
      levels: { levels: 2, rows: 1, searchWindows: 8, drainS: 60 },
    });
    expect(line).toBe(
      'run r: m, 2 load levels in 1 row and a rate search (at most 8 windows); about 2 min (a level whose requests outlast its window waits up to 60 s more for them)',
    );
    // Closed levels alone never drain: nothing said.
    expect(startLine({ ...start, contexts: [1024], concurrency: [], levels: { levels: 2, rows: 1 } })).toBe(
      'run r: m, 2 load levels in 1 row; about 2 min',
    );
  });
});
