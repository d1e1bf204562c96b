import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecodeCell } from '../../src/results/schema.js';
import { FLAVORS, type Flavor } from '../../src/sim/profile-schema.js';
import { adapterByName } from '../../src/target/engines/index.js';
import { runVirtual, virtualSettings } from './virtual-run.js';

// Queueing without metrics (docs/method.md "Queueing seen by the client"), through the real runner on every sim
// flavor with metrics off (the sim serves no /metrics, the runner gets no sampler), so only the client's timeline
// (src/stats/queue.ts) can tell: with S max sequences and N concurrent requests, every N > S cell is Requests queued
// and every N <= S cell Valid. The demo profile: a 1K prompt prefills in ~25 ms, speculative
// decode gives multi-token chunks, a 64-token answer lasts ~0.3 s, so queued requests cycle through the slots inside
// the 1 s window. KV raised so that 16S x (1K + 64) fits: Over capacity is not what this measures. Each flavor is
// told to the runner as its probe would (engine name, request extensions): TGI and Ollama ignore ignore_eos, so
// lengths vary.
const SLOTS = [1, 2, 4, 8];
const concurrencies = (s: number): number[] => [...new Set([s, s + 1, 2 * s, 4 * s, 16 * s])];

async function decodeCells(flavor: Flavor, slots: number): Promise<DecodeCell[]> {
  const { result, error } = await runVirtual(
    virtualSettings(mkdtempSync(join(tmpdir(), 'lib-queue-')), {
      contexts: [1024],
      prefillContexts: [1024],
      prefillRepeats: 1,
      concurrency: concurrencies(slots),
      maxOutput: 64,
      duration: 1,
    }),
    {
      sim: {
        profile: 'demo',
        flavor,
        seed: 11,
        overrides: { maxNumSeqs: slots, metrics: false, kvCapacityTokens: 200_000 },
      },
      info: { engine: { name: flavor, version: 'sim' }, extensions: adapterByName(flavor).extensions },
    },
  );
  expect(error).toBeUndefined();
  return result.decode;
}

describe('Requests queued without server metrics, every flavor (virtual time)', () => {
  it.each(FLAVORS)('%s: for S in 1, 2, 4, 8, N > S is queued and N <= S valid', async (flavor) => {
    for (const s of SLOTS) {
      const cells = await decodeCells(flavor, s);
      const got = cells.map((c) => ({
        s,
        n: c.concurrency,
        status: c.status,
        ceiling: c.clientQueue?.peakStreaming,
        samples: c.serverSamples?.length ?? 0,
      }));
      // The ceiling the client saw is the server's slot count: S when queued, all N when not.
      const want = concurrencies(s).map((n) => ({
        s,
        n,
        status: n > s ? 'Requests queued' : 'Valid',
        ceiling: Math.min(n, s),
        samples: 0,
      }));
      expect(got).toEqual(want);
    }
  });
});
