import { afterAll, describe, expect, it } from 'vitest';
import type { SimHandle } from '../../../src/sim/index.js';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  fastFlags,
  readRun,
  runDirs,
  startTestSim,
  tempDir,
  truthById,
} from '../../integration/run-helpers.js';

// `run --workers 2` end to end: the option reaches the decode cells, the result records it, every request line
// comes from a worker thread and its token counts equal the sim's truth.
describe('run --workers', () => {
  let sim: SimHandle | undefined;
  afterAll(async () => sim?.close());

  it('runs decode cells on 2 worker threads with exact counts', { timeout: 120_000 }, async () => {
    sim = await startTestSim();
    const out = tempDir('workers');
    const r = await runCliInProcess([
      'run',
      ...fastFlags(sim.baseUrl, out),
      '--contexts',
      '1K',
      '--concurrency',
      '1,4', // pools of 1 and 2 threads: request ids must stay unique across them
      '--max-output',
      '64',
      '--workers',
      '2',
    ]);
    expect(r.stderr).not.toMatch(/error \[/);
    expect(r.code).toBe(0);
    const [dir] = runDirs(out);
    const { result, lines } = readRun(dir!);
    expect(result.config.workers).toBe(2);
    const cell = result.decode.find((c) => c.concurrency === 4)!;
    // Valid on a quiet machine; a starved one can show queueing (the sim shares the test process): the point
    // here is the plumbing and the counts.
    expect(['Valid', 'Requests queued'], `${cell.queueEvidence}`).toContain(cell.status);
    expect(cell.outputTokens).toBeGreaterThan(0);
    const decode = lines.filter((l) => l.cell === 'decode 1024x4' && l.phase !== 'warmup');
    expect(decode.length).toBeGreaterThan(4);
    expect(decode.every((l) => /-c\d+w[12]-\d+$/.test(l.requestId))).toBe(true);
    expect(new Set(decode.map((l) => l.requestId.match(/w(\d)-\d+$/)![1])).size).toBe(2);
    const ids = lines.map((l) => l.requestId);
    expect(new Set(ids).size).toBe(ids.length);
    const simIds = sim.truth().map((t) => t.requestId);
    expect(new Set(simIds).size).toBe(simIds.length);
    const truth = truthById(sim);
    for (const l of decode) {
      const t = truth.get(l.requestId);
      if (!t) continue; // aborted at the close before the sim saw it
      expect(l.chunks.map((c) => c[1])).toEqual(t.chunks.slice(0, l.chunks.length).map((c) => c[1]));
      if (l.status === 'ok') expect(l.outputTokens).toBe(t.outputTokens);
    }
  });

  it('rejects --workers 0 with a clear usage error', async () => {
    const r = await runCliInProcess(['run', '--base-url', 'http://127.0.0.1:9/v1', '--workers', '0']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/workers/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
