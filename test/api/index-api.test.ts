// The documented programmatic API (docs/api.md) compiles and works from the package entry: stream one request
// against the sim and get its timed record, equal to the sim's ground truth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  nowMs,
  renderReport,
  startSim,
  streamRequest,
  BenchRun,
  type RequestRecord,
  type SimHandle,
} from '../../src/index.js';

describe('package API (src/index.ts)', () => {
  let sim: SimHandle;
  beforeAll(async () => {
    sim = await startSim({ profile: 'tiny', seed: 3 });
  });
  afterAll(() => sim.close());

  it('streams one request and returns its timed record', async () => {
    const before = nowMs();
    const record: RequestRecord = await streamRequest({
      baseUrl: sim.baseUrl,
      api: 'chat',
      body: {
        model: 'sim/tiny',
        messages: [{ role: 'user', content: 'Hello' }],
        max_tokens: 16,
        ignore_eos: true,
        stream_options: { include_usage: true, continuous_usage_stats: true }, // exact tokens per chunk (vLLM)
      },
      requestId: 'api-1',
    });
    expect(record.ok).toBe(true);
    expect(record.tokenCountSource).toBe('continuous_usage');
    expect(record.outputTokens).toBe(16);
    expect(record.tokenCountSource).toBe('continuous_usage');
    expect(record.outputTokens).toBe(16);
    expect(record.sentAtMs).toBeGreaterThanOrEqual(before);
    expect(record.firstTokenAtMs!).toBeGreaterThan(record.sentAtMs);
    expect(record.endAtMs).toBeGreaterThanOrEqual(record.firstTokenAtMs!);
    const truth = sim.truth().find((t) => t.requestId === 'api-1')!;
    expect(record.outputTokens).toBe(truth.outputTokens);
    expect(record.chunks.map((c) => c[1])).toEqual(truth.chunks.map((c) => c[1]));
    expect(typeof renderReport).toBe('function');
    expect(typeof BenchRun).toBe('function');
  });
});
