import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type * as CellRepeats from '../../src/bench/cell-repeats.js';
import { BenchRun } from '../../src/bench/run.js';
import { isBenchError } from '../../src/errors.js';
import type { RunSettings } from '../../src/bench/settings.js';
import { silentProgress } from '../../src/progress/sink.js';
import { readRequestLines, type RequestLine } from '../../src/results/io.js';
import type { DecodeCell } from '../../src/results/schema.js';
import { runVirtual, virtualRig, virtualSettings } from './virtual-run.js';

// --repeats in virtual time: the real runner against the sim, each decode cell measured R times and merged.
// The merge itself is the real one; the spy keeps the cells it was given, so the test can hold each repeat's own
// interval against the merged one.
const merged = vi.hoisted(() => [] as { inputs: DecodeCell[]; out: DecodeCell }[]);
vi.mock('../../src/bench/cell-repeats.js', async (importOriginal) => {
  const real = await importOriginal<typeof CellRepeats>();
  return {
    ...real,
    mergeCellRepeats: (cells: readonly DecodeCell[]) => {
      const out = real.mergeCellRepeats(cells);
      merged.push({ inputs: structuredClone([...cells]), out });
      return out;
    },
  };
});

const settings = (out: string, extra: Partial<RunSettings> = {}): RunSettings =>
  virtualSettings(out, {
    contexts: [1024],
    prefillContexts: [1024],
    concurrency: [1, 4],
    maxOutput: 50,
    duration: 2,
    prefillRepeats: 1,
    runId: 'rep',
    ...extra,
  });
const rigOptions = { info: { kvCapacityTokens: 20_000 } };

const FIGURES = ['totalTokensPerS', 'perRequestTokensPerS', 'ttftMs', 'tbtMs'] as const;
const width = (i: { lo: number; hi: number } | null | undefined) => (i ? i.hi - i.lo : 0);
const decodeLines = (dir: string, n: number): RequestLine[] =>
  readRequestLines(join(dir, 'requests.jsonl')).filter((l) => l.cell === `decode 1024x${n}`);

describe('--repeats (the sim in virtual time)', () => {
  it('measures each cell three times and stores their mean with an interval no narrower than any repeat', async () => {
    merged.length = 0;
    const out = mkdtempSync(join(tmpdir(), 'lib-repeats-'));
    const rig = virtualRig(rigOptions);
    const steps = rig.sim.profile.decodeStepMs.map(([b, ms]) => [b, ms] as [number, number]);
    const slowdown = [1, 1.2, 0.9]; // the server's decode speed in repeat 1, 2, 3
    const progress = {
      ...silentProgress,
      phase: (label: string) => {
        const i = /^warm-up .*\(repeat (\d) of 3\)$/.exec(label)?.[1];
        if (i) rig.sim.profile.decodeStepMs = steps.map(([b, ms]) => [b, ms * slowdown[Number(i) - 1]!]);
      },
    };
    const three = await rig.drive(
      new BenchRun(settings(out, { repeats: 3 }), { ...rig.deps, progress }).start(),
    );
    const r = three.result;
    expect(r.status).toBe('complete');
    expect(r.config.repeats).toBe(3);
    // --repeats 3 lifts --prefill-repeats 1 to 3: the point has a spread of its own
    expect(r.config.prefillRepeats).toBe(3);
    expect(r.prefill[0]!.repeats).toHaveLength(3);
    expect(r.decode.map((c) => c.status)).toEqual(['Valid', 'Valid']);
    expect(merged).toHaveLength(2);

    for (const cell of r.decode) {
      const m = merged.find((x) => x.out.concurrency === cell.concurrency)!;
      expect(m.inputs).toHaveLength(3);
      expect(cell.repeats).toHaveLength(3);
      for (const f of FIGURES) {
        const values = cell.repeats!.map((x) => x[f]!);
        expect(values.every((v) => v > 0)).toBe(true);
        expect(values).toEqual(m.inputs.map((c) => c[f]));
        // stored to 1e-3 by the result writer
        expect(cell[f]).toBeCloseTo(values.reduce((a, b) => a + b, 0) / 3, 2);
        const iv = cell.intervals![f];
        if (iv === null || iv === undefined) {
          // no interval only where no repeat saw any spread (the sim's TTFT at one request is exact)
          expect(new Set(values).size).toBe(1);
          for (const c of m.inputs) expect(width(c.intervals?.[f])).toBe(0);
          continue;
        }
        expect(iv.lo).toBeLessThanOrEqual(cell[f]!);
        expect(iv.hi).toBeGreaterThanOrEqual(cell[f]!);
        for (const c of m.inputs) {
          expect(c.intervals?.[f], `${f} of a repeat`).toBeTruthy(); // every window had its own interval
          expect(width(iv)).toBeGreaterThanOrEqual(width(c.intervals?.[f]) - 2e-3);
        }
      }
      // the server's mood between windows is what one window's interval cannot see: the merged interval spans it
      const totals = cell.repeats!.map((x) => x.totalTokensPerS!);
      expect(Math.max(...totals) / Math.min(...totals)).toBeGreaterThan(1.1);
      for (const c of m.inputs)
        expect(width(cell.intervals!.totalTokensPerS)).toBeGreaterThan(
          2 * width(c.intervals?.totalTokensPerS),
        );
      // counts add up over the windows
      expect(cell.completed).toBe(m.inputs.reduce((a, c) => a + c.completed!, 0));
      expect(cell.measuredS).toBeCloseTo(
        m.inputs.reduce((a, c) => a + c.measuredS!, 0),
        2,
      );
      expect(cell.measuredS!).toBeGreaterThan(3 * 2 * 0.9);
    }

    // requests.jsonl keeps every repeat's requests under the cell's one key, each marked with its repeat
    const one = await runVirtual(settings(mkdtempSync(join(tmpdir(), 'lib-repeats-'))), rigOptions);
    expect(one.result.config.repeats).toBe(1);
    expect(one.result.config.prefillRepeats).toBe(1);
    for (const n of [1, 4]) {
      const lines = decodeLines(three.dir, n);
      expect(new Set(lines.map((l) => l.repeat))).toEqual(new Set([1, 2, 3]));
      const sent = lines.filter((l) => l.phase !== 'warmup');
      expect(sent).toHaveLength(r.decode.find((c) => c.concurrency === n)!.requestsSent!);
      const windowOf = (ls: RequestLine[], i?: number) =>
        ls.filter((l) => l.phase === 'window' && l.repeat === i).length;
      const single = windowOf(decodeLines(one.dir, n));
      expect(single).toBeGreaterThan(0);
      expect(decodeLines(one.dir, n).every((l) => l.repeat === undefined)).toBe(true);
      // each repeat's window holds about what one window holds (the slowdown moves it by under 20%): 3x in all
      for (const i of [1, 2, 3]) {
        expect(windowOf(lines, i)).toBeGreaterThanOrEqual(Math.floor(single * 0.8));
        expect(windowOf(lines, i)).toBeLessThanOrEqual(Math.ceil(single * 1.2));
      }
    }
  });

  it('keeps nothing of a cell interrupted between its repeats and measures all of them again on resume', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-repeats-'));
    const s = settings(out, { repeats: 3, concurrency: [2] });
    const rig = virtualRig(rigOptions);
    const phases: string[] = [];
    const run: BenchRun = new BenchRun(s, {
      ...rig.deps,
      progress: {
        ...silentProgress,
        phase: (label) => {
          phases.push(label);
          if (label.includes('(repeat 2 of 3)')) run.interrupt();
        },
      },
    });
    const first = await rig.drive(run.start());
    expect(first.result.status).toBe('interrupted');
    expect(phases.some((p) => p.startsWith('decode 1K x2') && p.endsWith('(repeat 1 of 3)'))).toBe(true);
    expect(first.result.prefill).toHaveLength(1); // the finished point stays
    expect(first.result.decode).toEqual([]);
    expect(decodeLines(first.dir, 2)).toEqual([]); // repeat 1's requests were never logged

    const again = await rig.drive(
      // the stored run's repeats win over the settings given to the resume
      new BenchRun({ ...s, repeats: 1, resume: first.dir, runId: undefined }, rig.deps).start(),
    );
    expect(again.result.status).toBe('complete');
    const cell = again.result.decode[0]!;
    expect(cell.repeats).toHaveLength(3);
    const lines = decodeLines(first.dir, 2);
    expect(new Set(lines.map((l) => l.repeat))).toEqual(new Set([1, 2, 3]));
    expect(lines.filter((l) => l.phase !== 'warmup')).toHaveLength(cell.requestsSent!);
  });

  it('an error that ends the run between repeats keeps nothing of the cell, and --resume measures it whole', async () => {
    // Where repeat 2's window starts, from a clean run of the same (deterministic) sim: the connect request,
    // three prefill repeats, repeat 1's requests and repeat 2's warm-up come before it.
    const clean = await runVirtual(
      settings(mkdtempSync(join(tmpdir(), 'lib-repeats-')), { repeats: 3, concurrency: [1] }),
      rigOptions,
    );
    const firstWindow = decodeLines(clean.dir, 1).filter((l) => l.repeat === 1).length;
    const before = 1 + 3 + firstWindow + 1 + 2; // two requests into repeat 2's ramp and window
    const out = mkdtempSync(join(tmpdir(), 'lib-repeats-'));
    const s = settings(out, { repeats: 3, concurrency: [1] });
    const failed = await runVirtual(s, { ...rigOptions, sim: { faults: `401:after=${before}` } });
    expect(isBenchError(failed.error) && failed.error.code).toBe('AUTH_FAILED');
    expect(failed.result.status).toBe('failed');
    expect(failed.result.decode).toEqual([]);
    // the requests that reached the server are logged (repeat 2's refused ones among them) until a resume
    expect(decodeLines(failed.dir, 1).some((l) => l.repeat === 2 && l.errorKind === 'http_status')).toBe(
      true,
    );

    const again = await runVirtual({ ...s, resume: failed.dir, runId: undefined }, rigOptions);
    expect(again.result.status).toBe('complete');
    expect(again.result.decode[0]!.repeats!.map((x) => x.status)).toEqual(['Valid', 'Valid', 'Valid']);
    const lines = decodeLines(failed.dir, 1);
    expect(lines.some((l) => l.errorKind === 'http_status')).toBe(false); // the failed attempt's lines are gone
    expect(lines.filter((l) => l.phase !== 'warmup')).toHaveLength(again.result.decode[0]!.requestsSent!);
  });
});
