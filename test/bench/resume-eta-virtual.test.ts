import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import { priorPrefillModel } from '../../src/plan/prefill-model.js';
import { startLine } from '../../src/progress/lines.js';
import { runEta } from '../../src/progress/run-eta.js';
import type { ProgressSink, ProgressStart } from '../../src/progress/sink.js';
import type { RunResult } from '../../src/results/schema.js';
import { runVirtual, virtualRig, virtualSettings } from './virtual-run.js';

// The ETA as the live view reads it: at every event, and every second when `tick` (the ETA once sat still
// between events). `off` lists the readings more than 25% (or 1.5 s where little is left) from the time left.
function watchEta(rig: ReturnType<typeof virtualRig>, tick: boolean) {
  const eta = runEta(() => rig.clock.now());
  const seen: Array<{ atMs: number; etaS: number }> = [];
  const w = { start: undefined as ProgressStart | undefined, firstPointMs: undefined as number | undefined };
  let ticking = tick;
  const note = () => seen.push({ atMs: rig.clock.now(), etaS: eta.seconds() });
  const every = () => {
    if (!ticking) return;
    note();
    rig.clock.setTimer(every, 1000);
  };
  const progress: ProgressSink = {
    start(s) {
      w.start = s;
      eta.start(s);
      every();
    },
    phase: tick ? note : () => {},
    prefillDone(p) {
      eta.prefillDone(p);
      w.firstPointMs ??= rig.clock.now();
      note();
    },
    cellDone(c) {
      eta.cellDone(c);
      note();
    },
    warn() {},
    finish() {},
  };
  const off = (endMs: number, fromMs = 0) =>
    seen
      .filter((x) => x.atMs >= fromMs)
      .map((x) => ({ ...x, leftS: (endMs - x.atMs) / 1000 }))
      .filter((x) => Math.abs(x.etaS - x.leftS) > Math.max(1.5, 0.25 * x.leftS));
  return { w, seen, progress, off, stop: () => (ticking = false) };
}

// On --resume the ETA sat still for seconds, then jumped. A resumed run's estimate starts from
// the prefill speed its own points measured, and the ETA then tracks the time really left.
describe('ETA of a resumed run (virtual time)', () => {
  it('starts from the measured prefill speed and stays near the time left at every event', async () => {
    const out = mkdtempSync(join(tmpdir(), 'resume-eta-'));
    const matrix = { contexts: [1024, 4096, 16384], concurrency: [1, 4], duration: 2 };
    const full = await runVirtual(virtualSettings(out, matrix));
    expect(full.result.status).toBe('complete');
    // As a crash would leave it: the first context's prefill point and cells, nothing after.
    const cut: RunResult = {
      ...full.result,
      status: 'running',
      decode: full.result.decode.filter((c) => c.contextTokens === 1024),
      prefill: full.result.prefill.filter((p) => p.contextTokens === 1024),
    };
    writeFileSync(join(full.dir, 'result.json'), JSON.stringify(cut));

    const rig = virtualRig();
    const { w, seen, progress, off, stop } = watchEta(rig, true);
    const run = new BenchRun(virtualSettings(out, { ...matrix, resume: full.dir }), {
      ...rig.deps,
      progress,
    });
    await rig.drive(run.start());
    stop();
    const endMs = rig.clock.now();
    expect(seen.length).toBeGreaterThan((endMs - seen[0]!.atMs) / 1000);
    // The estimate's prefill model is fitted to the 1K point, not the engine's prior.
    expect(w.start!.prefillPrior).not.toEqual(priorPrefillModel('vllm'));
    expect(w.start!.prefillGuessed).toBe(false);
    expect(w.start!.counts.done).toBe(2);
    const after = JSON.parse(readFileSync(join(full.dir, 'result.json'), 'utf8')) as RunResult;
    expect(after.status).toBe('complete');
    // At every event the ETA is within 25% of the time really left, or 1.5 s where little is left.
    expect(off(endMs)).toEqual([]);
  });

  // A fresh run knows nothing of the server's prefill speed: its first line says the estimate is a guess, and from
  // its first prefill point on (repeats a few tokens apart, once fitted as a slope that put the full window at
  // 100 times its time) the ETA tracks the time really left.
  it('a fresh run: the first estimate is a guess and says so; the ETA then tracks the time left', async () => {
    const out = mkdtempSync(join(tmpdir(), 'fresh-eta-'));
    const rig = virtualRig();
    const { w, seen, progress, off } = watchEta(rig, false);
    const matrix = { contexts: [1024, 4096, 16384], concurrency: [1, 4], duration: 2, prefillRepeats: 3 };
    await rig.drive(new BenchRun(virtualSettings(out, matrix), { ...rig.deps, progress }).start());
    const endMs = rig.clock.now();
    expect(w.start!.prefillGuessed).toBe(true);
    expect(startLine(w.start!)).toMatch(
      /; about \S+ \S+ \(prefill speed guessed until measured; the ETA corrects it\)$/,
    );
    expect(seen.length).toBeGreaterThan(6);
    expect(off(endMs, w.firstPointMs)).toEqual([]);
  });
});
