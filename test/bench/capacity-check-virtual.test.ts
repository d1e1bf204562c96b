import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchRun } from '../../src/bench/run.js';
import { silentProgress } from '../../src/progress/sink.js';
import { runVirtual, virtualRig, virtualSettings } from './virtual-run.js';

// A bound is not a verdict (docs/method.md "Plan"): the runner measures the first cell over a capacity that is only
// a lower bound, and the server decides. The case of the capacity issue: llama.cpp with a unified pool of 65,536
// tokens and 4 slots, whose API shows one slot's 32,768.
const out = () => mkdtempSync(join(tmpdir(), 'lib-cap-'));
const unified = {
  flavor: 'llamacpp' as const,
  overrides: { kvCapacityTokens: 65_536, maxNumSeqs: 4, maxModelLen: 32_768, kvUnified: true },
};
const cells = (r: { decode: Array<{ contextTokens: number; concurrency: number; status: string }> }) =>
  Object.fromEntries(r.decode.map((c) => [`${c.contextTokens}x${c.concurrency}`, c.status]));

describe('capacity checks in a run (virtual time)', () => {
  it('measures the cell just over a lower bound; one that runs whole raises the bound for the next', async () => {
    const { result, error } = await runVirtual(
      virtualSettings(out(), {
        contexts: [8192],
        prefillContexts: [8192],
        concurrency: [1, 4, 8, 16],
        maxOutput: 512,
        duration: 1,
      }),
      { sim: unified, info: { kvCapacityTokens: 32_768, kvCapacityBound: 'lower-bound' } },
    );
    expect(error).toBeUndefined();
    // 8K x 4 needs 34,816 > 32,768 (the bound): measured, and the 4 slots of the 65,536 pool ran it whole.
    // That proves 34,816; 8K x 8 (69,632) is then the next check: 4 slots, so it queued (the rule held).
    // 8K x 16 stays Over capacity: one check per context per bound.
    expect(cells(result)).toEqual({
      '8192x1': 'Valid',
      '8192x4': 'Valid',
      '8192x8': 'Requests queued',
      '8192x16': 'Over capacity',
    });
    const x4 = result.decode.find((c) => c.concurrency === 4)!;
    expect(x4.capacityCheck).toEqual({
      needTokens: 34_816,
      kvCapacityTokens: 32_768,
      bound: 'lower-bound',
      why: 'bound',
      held: false,
    });
    const x8 = result.decode.find((c) => c.concurrency === 8)!;
    expect(x8.capacityCheck).toMatchObject({ needTokens: 69_632, kvCapacityTokens: 34_816, held: true });
    expect(result.decode.find((c) => c.concurrency === 16)!.queueEvidence).toMatch(/> KV capacity 34816/);
  });

  it('an exact capacity skips the cell unless --verify-capacity asks, and then says whether the rule held', async () => {
    const settings = (verifyCapacity: boolean) =>
      virtualSettings(out(), {
        contexts: [8192],
        prefillContexts: [8192],
        concurrency: [1, 4],
        maxOutput: 512,
        duration: 1,
        verifyCapacity,
      });
    const exact = { kvCapacityTokens: 32_768, kvCapacityBound: 'exact' as const };
    const plain = await runVirtual(settings(false), { sim: unified, info: exact });
    expect(cells(plain.result)['8192x4']).toBe('Over capacity');
    const verified = await runVirtual(settings(true), { sim: unified, info: exact });
    expect(verified.result.config.verifyCapacity).toBe(true);
    const x4 = verified.result.decode.find((c) => c.concurrency === 4)!;
    expect(x4.status).toBe('Valid');
    expect(x4.capacityCheck).toMatchObject({ bound: 'exact', why: 'verify', held: false });
  });

  it('a resumed run keeps the bound its checks proved', async () => {
    const rig = virtualRig({
      sim: unified,
      info: { kvCapacityTokens: 32_768, kvCapacityBound: 'lower-bound' },
    });
    const dir = out();
    const s = virtualSettings(dir, { contexts: [8192], concurrency: [1, 4, 8], maxOutput: 512, duration: 1 });
    let cellsDone = 0;
    const progress = {
      ...silentProgress,
      cellDone: () => {
        if (++cellsDone === 2) run.interrupt(); // 8K x1 and the x4 check are kept; x8 is not started
      },
    };
    const run: BenchRun = new BenchRun(s, { ...rig.deps, progress });
    await rig.drive(run.start()).catch(() => undefined);
    const resumed = new BenchRun({ ...s, resume: join(dir, 'virtual') }, rig.deps);
    const outcome = await rig.drive(resumed.start());
    expect(cells(outcome.result)).toEqual({
      '8192x1': 'Valid',
      '8192x4': 'Valid',
      '8192x8': 'Requests queued',
    });
    expect(outcome.result.decode.find((c) => c.concurrency === 8)!.capacityCheck).toMatchObject({
      kvCapacityTokens: 34_816,
    });
  });
});
