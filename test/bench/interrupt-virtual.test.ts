import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchRun, type InterruptEffect } from '../../src/bench/run.js';
import type { RunSettings } from '../../src/bench/settings.js';
import { silentProgress } from '../../src/progress/sink.js';
import { virtualRig, virtualSettings } from './virtual-run.js';

// Ctrl-C says what happens to the cell in progress before it happens (src/cli/run.ts words it): a reviewer read
// "aborting the cell in progress", then that cell printed as measured with its whole window. Here the real runner
// in virtual time is interrupted at a given phase, and what interrupt() said is held against what the result kept.
const settings = (extra: Partial<RunSettings> = {}): RunSettings =>
  virtualSettings(mkdtempSync(join(tmpdir(), 'lib-interrupt-')), {
    contexts: [1024],
    prefillContexts: [1024],
    concurrency: [1, 2],
    maxOutput: 50,
    duration: 2,
    prefillRepeats: 1,
    runId: 'int',
    ...extra,
  });

async function interruptAt(when: (label: string) => boolean, extra: Partial<RunSettings> = {}) {
  const rig = virtualRig();
  let effect: InterruptEffect | undefined;
  const run: BenchRun = new BenchRun(settings(extra), {
    ...rig.deps,
    progress: {
      ...silentProgress,
      phase: (label) => {
        if (!effect && when(label)) effect = run.interrupt();
      },
    },
  });
  const out = await rig.drive(run.start());
  expect(out.result.status).toBe('interrupted');
  return { effect, cells: out.result.decode.map((c) => `${c.contextTokens}x${c.concurrency} ${c.status}`) };
}

describe('interrupt', () => {
  it('during a window: aborts that cell, which is not kept', async () => {
    const r = await interruptAt((l) => l.startsWith('decode 1K x2'));
    expect(r.effect).toEqual({ aborting: true });
    expect(r.cells).toEqual(['1024x1 Valid']);
  });

  it('after the window closed: says it finishes that cell, and keeps it whole', async () => {
    const r = await interruptAt((l) => l.startsWith('settle after 1K x2'));
    expect(r.effect).toEqual({ finishing: 'decode 1K x2' });
    expect(r.cells).toEqual(['1024x1 Valid', '1024x2 Valid']);
  });

  it('with --repeats, only the last window closing keeps the cell', async () => {
    const early = await interruptAt((l) => l === 'settle after 1K x1 (repeat 1 of 2)', { repeats: 2 });
    expect(early.effect).toEqual({ aborting: true });
    expect(early.cells).toEqual([]);
    const last = await interruptAt((l) => l === 'settle after 1K x1 (repeat 2 of 2)', { repeats: 2 });
    expect(last.effect).toEqual({ finishing: 'decode 1K x1' });
    expect(last.cells).toEqual(['1024x1 Valid']);
  });
});
