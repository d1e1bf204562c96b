import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecodeCell } from '../../src/results/schema.js';
import { FLAVORS, type Flavor } from '../../src/sim/profile-schema.js';
import { adapterByName } from '../../src/target/engines/index.js';
import { runVirtual, virtualSettings, type StreamHold } from './virtual-run.js';

// A stream held back between the server and the client (docs/method.md "Streams held back"), through the real
// runner in virtual time: the demo profile (6 ms steps, speculative decoding with 2.2 tokens a step, which
// llama.cpp, TGI and Ollama write as one event per token), straight to the client or through a middlebox that
// passes the stream on every 200 ms, or only at its end.
async function cells(flavor: Flavor, hold?: StreamHold): Promise<DecodeCell[]> {
  const { result, error } = await runVirtual(
    virtualSettings(mkdtempSync(join(tmpdir(), 'lib-held-')), {
      contexts: [1024],
      prefillContexts: [1024],
      prefillRepeats: 1,
      concurrency: [1, 4],
      maxOutput: 256,
      duration: 2,
    }),
    {
      sim: { profile: 'demo', flavor, seed: 5 },
      info: { engine: { name: flavor, version: 'sim' }, extensions: adapterByName(flavor).extensions },
      ...(hold ? { hold } : {}),
    },
  );
  expect(error).toBeUndefined();
  expect(result.decode.map((c) => c.status)).toEqual(['Valid', 'Valid']);
  return result.decode;
}

describe('streams held back between client and server (virtual time)', () => {
  it.each(FLAVORS)('%s: direct is not held; behind a 200 ms flush every cell is', async (flavor) => {
    const direct = await cells(flavor);
    const held = await cells(flavor, { flushEveryMs: 200 });
    for (const c of direct) {
      expect(c.streamBatching).toMatchObject({ batched: false, firstHeldShare: 0 });
      // a step's tokens come in one read: one event, or one per token on llama.cpp, TGI and Ollama
      expect(c.streamBatching!.eventsPerRead).toBeLessThan(3);
    }
    for (const [i, c] of held.entries()) {
      const b = c.streamBatching!;
      expect(b.batched).toBe(true);
      expect(b.eventsPerRead).toBeGreaterThan(8);
      expect(b.firstHeldShare).toBeGreaterThanOrEqual(0.5);
      expect(b.heldMs).toBeCloseTo(200, 0);
      // what the flag protects: the first token waited for the flush, up to 200 ms later than the server sent it
      expect(c.ttftMs! - direct[i]!.ttftMs!).toBeGreaterThan(20);
    }
  });

  it('a filter that holds the whole answer: one read per response, held from the send', async () => {
    const [one, four] = await cells('vllm', { flushEveryMs: Infinity });
    for (const c of [one!, four!]) {
      const b = c.streamBatching!;
      expect(b.batched).toBe(true);
      expect(b.firstHeldShare).toBe(1);
      // 256 tokens at 2.2 a step of 6 to 7.5 ms: the answer came whole after its full generation time
      expect(b.heldMs).toBeGreaterThan(600);
      expect(c.ttftMs).toBeGreaterThan(600);
    }
    // First tokens that come with the last make 4 streams look like fewer at once: that timeline cannot decide
    expect(four!.clientQueue!.queued).toBe(true);
    expect(four!.status).toBe('Valid');
    expect(four!.queueEvidence).toMatch(/held back between client and server/);
  });
});
