import { describe, expect, it } from 'vitest';
import { emptyCell } from '../../src/results/empty-cell.js';
import { liveProgress } from '../../src/progress/index.js';
import { estimateFor } from '../helpers/estimate.js';
import { countCells } from '../../src/plan/counts.js';
import { buildPlan } from '../../src/plan/plan.js';
import type { DecodeCell, PrefillPoint } from '../../src/results/schema.js';
import { emulatedTty } from '../helpers/terminal.js';

const plan = buildPlan({ contexts: [1024, 2048], concurrency: [1, 2, 4], maxOutput: 512 });
const start = {
  runId: 'r1',
  dir: '/tmp/r1',
  model: 'sim/demo-7b',
  contexts: [1024, 2048],
  concurrency: [1, 2, 4],
  counts: countCells(plan),
  prefillTotal: 3,
  estimateS: 40,
  ...estimateFor([1024, 2048], [1, 2, 4]),
  done: [] as DecodeCell[],
  overCapacity: [],
  resumed: false,
};

function prefill(ctx: number, tokS: number): PrefillPoint {
  const ttftMs = (ctx / tokS) * 1000;
  return {
    contextTokens: ctx,
    decodeContext: ctx !== 16128,
    status: 'Valid',
    tokensPerS: tokS,
    ttftMs,
    repeats: [{ promptTokens: ctx, ttftMs, tokensPerS: tokS, promptTokensSource: 'usage' }],
  } as unknown as PrefillPoint;
}

const cell = (ctx: number, n: number, tokS: number): DecodeCell => ({
  ...emptyCell(ctx, n, 'Valid'),
  totalTokensPerS: tokS,
  perRequestTokensPerS: tokS / n,
  ttftMs: 20,
  outputTokens: 100,
  measuredS: 3,
});

// The run's own order of events for contexts 1K, 2K x concurrency 1, 2, 4 and the full window.
async function drive(screen: () => Promise<string[]>, p: ReturnType<typeof liveProgress>) {
  const frames: string[][] = [];
  const done: DecodeCell[] = [];
  const snap = async () => frames.push(await screen());
  p.start(start);
  await snap();
  p.phase('connecting');
  for (const [ctx, label, tokS, cellTokS] of [
    [1024, '1K', 40_000, 150],
    [2048, '2K', 45_000, 140],
  ] as const) {
    p.phase(`prefill ${label} (cold)`);
    p.prefillDone(prefill(ctx, tokS));
    await snap();
    if (ctx === 2048) p.warn('warm-up of 2K x4: slot 3 failed (http_status 503)');
    for (const n of [1, 2, 4]) {
      p.phase(`warm-up ${label} x${n}`);
      p.phase(`decode ${label} x${n}: ramp and 3 s window`);
      done.push(cell(ctx, n, cellTokS * n));
      p.cellDone(done[done.length - 1]!, countCells(plan, done));
      await snap();
    }
  }
  p.phase('prefill 16K (cold)');
  p.prefillDone(prefill(16128, 44_000));
  await snap();
  p.finish('done: 6 cells: 6 measured; 3 prefill points');
  await snap();
  return frames;
}

const count = (rows: string[], re: RegExp) => rows.filter((r) => re.test(r)).length;

describe('live view through a terminal emulator', () => {
  it('keeps the header and the matrix whole in every frame, with no stale rows', async () => {
    const tty = emulatedTty(100, 40);
    const frames = await drive(tty.screen, liveProgress(tty.stream));
    for (const f of frames) {
      expect(count(f, /^run r1 · sim\/demo-7b/)).toBe(1);
      expect(count(f, /^context\s+1\s+2\s+4$/)).toBe(1);
      expect(count(f, /^1K\s/)).toBe(1);
      expect(count(f, /^2K\s/)).toBe(1);
      expect(count(f, /measured · ETA/)).toBe(1); // every frame draws its status line once
    }
    const last = frames[frames.length - 1]!;
    // Permanent lines stay above the live area, each once, in order.
    const prefillRows = last.filter((r) => r.startsWith('prefill '));
    expect(prefillRows.map((r) => r.split(':')[0])).toEqual(['prefill 1K', 'prefill 2K', 'prefill 16K']);
    expect(count(last, /^warning: warm-up of 2K x4: slot 3 failed \(http_status 503\)$/)).toBe(1);
    expect(last.find((r) => r.startsWith('1K'))).toMatch(/^1K\s+150\.0\s+300\.0\s+600\.0$/);
    expect(last.find((r) => r.startsWith('2K'))).toMatch(/^2K\s+140\.0\s+280\.0\s+560\.0$/);
    expect(last).toContain('6/6 measured · ETA 0 s · done');
    expect(last[last.length - 1]).toBe('done: 6 cells: 6 measured; 3 prefill points');
  });

  it('stays whole on a terminal narrower and shorter than the view', async () => {
    const tty = emulatedTty(40, 8);
    const frames = await drive(tty.screen, liveProgress(tty.stream));
    for (const f of frames.slice(0, -1)) {
      expect(f.every((r) => r.length <= 40)).toBe(true);
      expect(count(f, /measured · ETA/)).toBe(1);
    }
    const last = frames[frames.length - 1]!;
    expect(count(last, /measured · ETA/)).toBe(1);
    expect(last.slice(-2).join('')).toBe('done: 6 cells: 6 measured; 3 prefill points'); // wrapped at 40
  });

  it('stays whole when the terminal narrows between frames', async () => {
    const tty = emulatedTty(100, 30);
    const p = liveProgress(tty.stream);
    p.start(start);
    p.phase('decode 1K x1: ramp and 3 s window with a long phase text that fills the width of the line');
    await tty.resize(50, 30);
    const done: DecodeCell[] = [];
    for (const n of [1, 2]) {
      done.push(cell(1024, n, 150 * n));
      p.cellDone(done[done.length - 1]!, countCells(plan, done));
      p.phase(`decode 1K x${n + 1}: ramp and 3 s window`);
    }
    const f = await tty.screen();
    expect(count(f, /^run r1 · sim\/demo-7b/)).toBe(1);
    expect(count(f, /^context\s+1\s+2\s+4$/)).toBe(1);
    expect(count(f, /measured · ETA/)).toBe(1);
    expect(f.find((r) => r.startsWith('1K'))).toMatch(/^1K\s+150\.0\s+300\.0\s+·$/);
    p.finish('done');
  });

  it('on Ctrl-C and a failed run: the note goes above, the error starts on its own line', async () => {
    const tty = emulatedTty(100, 30);
    const p = liveProgress(tty.stream);
    p.start(start);
    p.cellDone(cell(1024, 1, 150), countCells(plan, [cell(1024, 1, 150)]));
    p.phase('decode 1K x2: ramp and 3 s window');
    p.note!('interrupting: aborting the cell in progress and saving the result...');
    p.close!();
    tty.stream.write(
      'error [INTERRUPTED]: run interrupted; 1 of 6 cells measured, kept in /tmp/r1/result.json.\n',
    );
    const f = await tty.screen();
    expect(f[0]).toBe('interrupting: aborting the cell in progress and saving the result...');
    expect(count(f, /^run r1 · sim\/demo-7b/)).toBe(1);
    // The last status names what was measured and that the run stopped: no stale ETA or phase above the error.
    expect(f[f.length - 2]).toBe('1/6 measured · stopped');
    expect(f.join('\n')).not.toMatch(/ETA|ramp and/);
    expect(f[f.length - 1]).toBe(
      'error [INTERRUPTED]: run interrupted; 1 of 6 cells measured, kept in /tmp/r1/result.json.',
    );
  });
});

// tmux scrolls the screen into its history when it is erased from the top-left corner (scroll-on-clear): a view
// that starts on the top row (after `clear`) and erased before each redraw left a frame in the scrollback at every
// redraw until a permanent line pushed it down.
describe('live view under tmux, starting on the top row', () => {
  const frameRow = /^run r1 · |^context\s|^[12]K\s|measured · ETA/;

  it('leaves nothing in the scrollback while the view fits the screen', async () => {
    const tty = emulatedTty(100, 30, { tmux: true });
    const p = liveProgress(tty.stream);
    p.start(start);
    for (const phase of ['connecting', 'prefill 1K (cold)', 'warm-up 1K x1']) p.phase(phase);
    expect(await tty.scrollback()).toEqual([]);
    const frames = await drive(tty.screen, p);
    expect(await tty.scrollback()).toEqual([]);
    const last = frames[frames.length - 1]!;
    expect(count(last, /^run r1 · sim\/demo-7b/)).toBe(1);
    expect(last[0]).toMatch(/^prefill 1K: /);
  });

  it('on a screen too short for it, only permanent lines scroll away, never a frame', async () => {
    const tty = emulatedTty(100, 9, { tmux: true });
    await drive(tty.screen, liveProgress(tty.stream));
    const gone = await tty.scrollback();
    expect(gone.length).toBeGreaterThan(0);
    expect(gone.filter((r) => frameRow.test(r))).toEqual([]);
  });
});

// The plan knows its Over capacity cells before the run reaches them: the live matrix says so from the first
// frame, where it showed "·" until each was reached.
describe('live view: Over capacity cells', () => {
  // KV 6,000 tokens at 512 output tokens: 1K x4 (6,144) and 2K x4 (10,240) do not fit.
  const small = buildPlan({
    contexts: [1024, 2048],
    concurrency: [1, 2, 4],
    maxOutput: 512,
    kvCapacityTokens: 6000,
  });
  const over = small.cells
    .filter((c) => c.status === 'Over capacity')
    .map(({ contextTokens, concurrency }) => ({ contextTokens, concurrency }));

  it('read "over" from the start, and "·" again where a capacity check proves room', async () => {
    expect(over).toEqual([
      { contextTokens: 1024, concurrency: 4 },
      { contextTokens: 2048, concurrency: 4 },
    ]);
    const tty = emulatedTty(100, 30);
    const p = liveProgress(tty.stream);
    p.start({ ...start, counts: countCells(small), overCapacity: over });
    let f = await tty.screen();
    expect(f.find((r) => r.startsWith('1K'))).toMatch(/^1K\s+·\s+·\s+over$/);
    expect(f.find((r) => r.startsWith('2K'))).toMatch(/^2K\s+·\s+·\s+over$/);
    p.replanned!([{ contextTokens: 2048, concurrency: 4 }]);
    f = await tty.screen();
    expect(f.find((r) => r.startsWith('1K'))).toMatch(/^1K\s+·\s+·\s+·$/);
    p.cellDone(cell(1024, 4, 600), countCells(small, [cell(1024, 4, 600)]));
    f = await tty.screen();
    expect(f.find((r) => r.startsWith('1K'))).toMatch(/^1K\s+·\s+·\s+600\.0$/);
    expect(f.find((r) => r.startsWith('2K'))).toMatch(/^2K\s+·\s+·\s+over$/);
    p.finish('done');
  });
});
