import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import { silentProgress, type ProgressStart } from '../../src/progress/sink.js';
import { virtualRig, virtualSettings } from './virtual-run.js';

// The runner tells the live view which cells the plan skips as Over capacity when the run starts, so they read
// "over" from the first frame (src/progress/live.ts). KV 10,000 tokens at 64 output tokens: 4K x2 needs 8,320,
// 4K x4 16,640.
describe('progress start names the Over capacity cells (virtual time)', () => {
  it("the plan's skipped cells, before any is reached", async () => {
    const out = mkdtempSync(join(tmpdir(), 'lib-over-progress-'));
    const rig = virtualRig({ info: { kvCapacityTokens: 10_000 } });
    let start: ProgressStart | undefined;
    const run = new BenchRun(
      virtualSettings(out, { contexts: [4096], concurrency: [1, 2, 4], duration: 1, prefillRepeats: 1 }),
      {
        ...rig.deps,
        progress: { ...silentProgress, start: (s) => (start = s) },
      },
    );
    const outcome = await rig.drive(run.start());
    expect(start!.done).toEqual([]);
    expect(start!.overCapacity).toEqual([{ contextTokens: 4096, concurrency: 4 }]);
    expect(outcome.result.decode.map((c) => [c.concurrency, c.status])).toEqual([
      [1, 'Valid'],
      [2, 'Valid'],
      [4, 'Over capacity'],
    ]);
  });
});
