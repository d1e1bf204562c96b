import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimHandle } from '../../src/sim/index.js';
import { tempDir, tinyArgs } from './lib/bench-run.js';
import { ENOSPC_PRELOAD, fullDiskRun, mountTmpfs } from './lib/full-disk.js';

// A disk that fills mid-run: one WRITE_FAILED line that says what to do; result.json stays a valid result with
// every cell it ever held. Regressions: a short write on a full tmpfs renamed a truncated result.json over the
// good one; the failed-status save lost the hint.
describe('full disk', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim({ profile: 'tiny', port: 0 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('ENOSPC at the node:fs write seam after 15 KB', { timeout: 120_000 }, async () => {
    const out = tempDir('enospc');
    const r = await fullDiskRun(sim.baseUrl, out, tinyArgs('1K,2K', '1,2'), {
      NODE_OPTIONS: `--import ${ENOSPC_PRELOAD}`,
      ENOSPC_DIR: out,
      ENOSPC_AFTER_BYTES: '15000',
      ENOSPC_SKIP: 'requests.jsonl',
    });
    expect(r.problems).toEqual([]);
    expect(r.maxCellsSeen).toBeGreaterThan(0);
    expect(r.run.errorLines[0]).toMatch(/free some space, then continue with `\S.* run --resume \S+`\.$/);
  });

  it('a real 20 KB tmpfs (where the sandbox can mount one)', { timeout: 120_000 }, async (ctx) => {
    const tm = tempDir('tmpfs');
    const unmount = mountTmpfs(tm, 20_000);
    if (!unmount) return ctx.skip('cannot mount a tmpfs here (needs root); the ENOSPC seam test covers it');
    try {
      const r = await fullDiskRun(sim.baseUrl, tm, tinyArgs('1K,2K', '1,2'));
      expect(r.problems).toEqual([]);
    } finally {
      unmount();
    }
  });
});
