import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/results/schema.js';
import type { Flavor, SimHandle } from '../../src/sim/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { startCoalescingProxy, type CoalescingProxy } from '../helpers/coalescing-proxy.js';
import { readRun, runDirs, startTestSim, tempDir } from './run-helpers.js';

// A stream held back on the way, on real sockets (docs/method.md "Streams held back"): the CLI in this process
// against the sim, straight or through a proxy that passes the server's bytes on every 200 ms. 10 ms steps, so
// a 200 ms burst carries about 20 token events; speculative decoding on llama.cpp writes one event per token.
const STEPS = { decodeStepMs: [[1, 10] as [number, number], [16, 10] as [number, number]] };

async function run(baseUrl: string): Promise<{ result: RunResult; report: string }> {
  const out = tempDir('held');
  const r = await runCliInProcess([
    'run',
    '--base-url',
    baseUrl,
    '--contexts',
    '1K',
    '--prefill-contexts',
    '1K',
    '--concurrency',
    '1,4',
    '--max-output',
    '64',
    '--duration',
    '1',
    '--settle-pause',
    '0.1',
    '--out',
    out,
    '--quiet',
  ]);
  expect(r.code, r.stderr).toBe(0);
  const [dir] = runDirs(out);
  return { result: readRun(dir!).result, report: readFileSync(join(dir!, 'report.md'), 'utf8') };
}

const sims: SimHandle[] = [];
let proxy: CoalescingProxy | undefined;
const sim = async (flavor: Flavor, speculative = false) => {
  const s = await startTestSim({
    flavor,
    overrides: { ...STEPS, ...(speculative ? { speculative: { k: 3, meanTokens: 2.2 } } : {}) },
  });
  sims.push(s);
  return s;
};
afterAll(async () => {
  await proxy?.close();
  for (const s of sims) await s.close();
});

describe('a stream held back on the way (real sockets, a coalescing proxy)', () => {
  it('through a proxy flushing every 200 ms every cell is flagged; straight to the sim none is', async () => {
    const s = await sim('vllm');
    const direct = await run(s.baseUrl);
    proxy = await startCoalescingProxy(Number(new URL(s.url).port), 200);
    const held = await run(proxy.baseUrl);
    expect(proxy.flushes).toBeGreaterThan(0);
    for (const c of direct.result.decode) {
      expect(c.status).toBe('Valid');
      expect(c.streamBatching?.batched, JSON.stringify({ b: c.streamBatching, client: c.client })).toBe(
        false,
      );
    }
    expect(direct.report).not.toContain('held the stream back');
    for (const [i, c] of held.result.decode.entries()) {
      expect(c.status).toBe('Valid');
      const b = c.streamBatching!;
      expect(b.batched, JSON.stringify({ b, client: c.client })).toBe(true);
      expect(b.eventsPerRead).toBeGreaterThan(4);
      expect(b.heldMs).toBeGreaterThan(100); // reads about 200 ms apart
      // the first tokens waited for a flush: the cell's TTFT is the proxy's
      expect(c.ttftMs!).toBeGreaterThan(direct.result.decode[i]!.ttftMs! + 20);
    }
    expect(held.report).toContain(
      `Cell 1K × 4: something between client and server held the stream back and passed it on in bursts`,
    );
  });

  it('llama.cpp with speculative decoding (one event per token, a step’s tokens at once) is not flagged', async () => {
    const s = await sim('llamacpp', true);
    const { result } = await run(s.baseUrl);
    for (const c of result.decode) {
      expect(c.status).toBe('Valid');
      expect(c.streamBatching?.batched).toBe(false);
      expect(c.streamBatching!.eventsPerRead).toBeGreaterThan(1); // 2.2 tokens a step, one event each
    }
  });
});
