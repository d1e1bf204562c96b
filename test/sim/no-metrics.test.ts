import { describe, expect, it } from 'vitest';
import { FLAVORS } from '../../src/sim/profile-schema.js';
import type { TruthRecord } from '../../src/sim/truth.js';
import { chatBody, harness } from './handler-helpers.js';

// Most requests running at once, from the ground truth (admission to end).
function peakRunning(truth: TruthRecord[]): number {
  let peak = 0;
  for (const t of truth) {
    const at = t.admittedMs!;
    peak = Math.max(peak, truth.filter((o) => o.admittedMs! <= at && at < o.endMs).length);
  }
  return peak;
}

describe('every flavor runs without metrics and still queues beyond its max sequences', () => {
  it.each(FLAVORS)('%s: /metrics is gone, 2 run at once, the other 3 wait', (flavor) => {
    const h = harness({ flavor, overrides: { metrics: false, maxNumSeqs: 2 } });
    const ws = Array.from({ length: 5 }, () =>
      h.send('POST', '/v1/chat/completions', chatBody({ model: 'sim/tiny', max_tokens: 40 })),
    );
    h.clock.advance(60_000);
    expect(ws.every((w) => w.status === 200)).toBe(true);
    expect(h.call('GET', '/metrics').status).toBe(404);
    if (flavor === 'trtllm') expect(h.call('GET', '/prometheus/metrics').status).toBe(404);
    const truth = h.ctx.truth.all();
    expect(truth).toHaveLength(5);
    expect(peakRunning(truth)).toBe(2);
    const firstEnd = Math.min(...truth.map((t) => t.endMs));
    expect(truth.filter((t) => t.admittedMs! >= firstEnd).length).toBe(3); // they waited for a slot
  });

  it('ollama with max-num-seqs 1 (OLLAMA_NUM_PARALLEL=1) runs one request at a time, the rest queue', () => {
    const h = harness({ flavor: 'ollama', overrides: { maxNumSeqs: 1 } });
    for (let i = 0; i < 4; i++)
      h.send('POST', '/v1/chat/completions', chatBody({ model: 'sim/tiny', max_tokens: 20 }));
    h.clock.advance(60_000);
    const truth = [...h.ctx.truth.all()].sort((a, b) => a.admittedMs! - b.admittedMs!);
    expect(truth).toHaveLength(4);
    for (let i = 1; i < truth.length; i++)
      expect(truth[i]!.admittedMs).toBeGreaterThanOrEqual(truth[i - 1]!.endMs);
  });
});
