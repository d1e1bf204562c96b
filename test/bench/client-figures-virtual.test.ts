import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRequestLines } from '../../src/results/io.js';
import { bareTargetInfo } from '../helpers/target-info.js';
import { runVirtual, virtualSettings } from './virtual-run.js';

// What a cell's client knows beyond its figures, wired through the runner (virtual time): the self-check's
// verdict, and honest per-chunk token counts on an engine without continuous usage (llama.cpp), where requests
// cut at the window close have no server total and their split is a character estimate until pinned.
const out = () => mkdtempSync(join(tmpdir(), 'lib-client-'));
const settings = (dir: string) =>
  virtualSettings(dir, { contexts: [1024], prefillContexts: [1024], concurrency: [1, 4], maxOutput: 64 });
const spec = {
  flavor: 'llamacpp' as const,
  overrides: { speculative: { k: 4, meanTokens: 3 }, maxNumSeqs: 8 },
};
const noContinuousUsage = { extensions: bareTargetInfo().extensions }; // no continuous usage

describe('client figures of a cell (virtual time)', () => {
  it('a starved client marks every cell client-bound, with the reason', async () => {
    const starved = () => ({
      start: () => {},
      stop: () => ({ loopDelayP99Ms: 42, loopDelayMaxMs: 90, cpuPctPerThread: 55, threads: 1, wallMs: 2000 }),
    });
    const { result, error } = await runVirtual(settings(out()), { deps: { clientMonitor: starved } });
    expect(error).toBeUndefined();
    expect(result.decode).toHaveLength(2);
    for (const c of result.decode) {
      expect(c.client).toMatchObject({ clientBound: true, loopDelayP99Ms: 42, threads: 1 });
      expect(c.client!.reason).toMatch(/event-loop delay p99 42 ms > \d+(\.\d)? ms/);
    }
  });

  it('a quiet client is checked and not flagged', async () => {
    const quiet = () => ({
      start: () => {},
      stop: () => ({ loopDelayP99Ms: 0.4, loopDelayMaxMs: 2, cpuPctPerThread: 12, threads: 1, wallMs: 2000 }),
    });
    const { result } = await runVirtual(settings(out()), { deps: { clientMonitor: quiet } });
    for (const c of result.decode) expect(c.client).toMatchObject({ clientBound: false });
  });

  it('--workers 1 runs the slots in this thread: the self-check divides the CPU by one thread, not two', async () => {
    const threads: number[] = [];
    const quiet = (n: number) => {
      threads.push(n);
      return {
        start: () => {},
        stop: () => ({
          loopDelayP99Ms: 0.4,
          loopDelayMaxMs: 2,
          cpuPctPerThread: 12,
          threads: n,
          wallMs: 2000,
        }),
      };
    };
    const { result, error } = await runVirtual(
      { ...settings(out()), workers: 1 },
      { deps: { clientMonitor: quiet } },
    );
    expect(error).toBeUndefined();
    expect(result.decode).toHaveLength(2);
    expect(threads).toEqual([1, 1]);
  });

  it('without continuous usage: pinned exact with the server tokenizer', async () => {
    const run = await runVirtual(settings(out()), { sim: spec, info: noContinuousUsage });
    expect(run.error).toBeUndefined();
    for (const c of run.result.decode) {
      expect(c.chunkAttribution).toBe('exact');
      expect(c.windowTokenErrorBound).toBeUndefined();
    }
    const lines = readRequestLines(join(run.dir, 'requests.jsonl'));
    const window = lines.filter((l) => l.phase === 'window');
    expect(window.length).toBeGreaterThan(4);
    expect(window.every((l) => l.chunkAttribution !== 'estimated')).toBe(true);
    expect(lines.filter((l) => l.cell === 'connect')).toHaveLength(1); // the connect request is logged
  });

  it('without a tokenizer the split stays estimated, and the bound never exceeds the count', async () => {
    const { result } = await runVirtual(settings(out()), {
      sim: spec,
      info: { ...noContinuousUsage, tokenize: undefined, tokenizeAvailable: false },
    });
    const estimated = result.decode.filter((c) => c.chunkAttribution === 'estimated');
    expect(estimated.length).toBeGreaterThan(0);
    // Requests cut at the close lie inside the window, so their guesses move nothing across its edges.
    for (const c of estimated) expect(c.windowTokenErrorBound).toBeUndefined();
  });
});
