import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { emptyCell } from '../../src/results/empty-cell.js';
import { chooseProgress, liveProgress, plainProgress, silentProgress } from '../../src/progress/index.js';
import { estimateFor } from '../helpers/estimate.js';
import type { DecodeCell } from '../../src/results/schema.js';

const start = {
  runId: 'r',
  dir: '/tmp/r',
  model: 'm',
  contexts: [8192, 16384],
  concurrency: [1, 2],
  cellsTotal: 3,
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
    p.cellDone(valid);
    p.cellDone({ ...emptyCell(16384, 2, 'Over capacity') });
    p.cellDone({ ...emptyCell(8192, 2, 'Failed'), error: 'no tokens arrived inside the window' });
    expect(lines[0]).toContain('3 cells to measure, about 2 min');
    expect(lines[1]).toBe(
      'decode 8K x1: Valid, 108.1 tok/s total, 108.2 tok/s per request, TTFT 114 ms, 3,244 tokens in 30.0 s [1/3, ETA ' +
        lines[1]!.split('ETA ')[1],
    );
    expect(lines[2]).toMatch(/^decode 16K x2: Over capacity \[1\/3/);
    expect(lines[3]).toMatch(/^decode 8K x2: Failed \(no tokens arrived inside the window\) \[2\/3/);
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
    p.cellDone(valid);
    p.finish('done');
    expect(out).toContain('decode 8K x1: ramp and 30 s window');
    expect(out).toMatch(/8K\s+108\.1\s+·/);
    expect(out).toContain('1/3 cells');
    expect(out).toContain('done');
  });

  it('is silent with --quiet', () => {
    expect(chooseProgress({ quiet: true })).toBe(silentProgress);
  });
});
