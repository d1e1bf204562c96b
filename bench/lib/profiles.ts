// Sim profiles for the benchmarks: constant decode steps (so every stream's truth is simple), fast prefill,
// room for thousands of sequences.
export function benchProfile(o: {
  stepMs: number;
  maxNumSeqs?: number;
  maxModelLen?: number;
  prefillTokensPerS?: number;
  speculative?: { k: number; meanTokens: number }; // several tokens per chunk (1..k+1, this mean)
}) {
  const seqs = o.maxNumSeqs ?? 256;
  const prefill = o.prefillTokensPerS ?? 2_000_000;
  return {
    name: 'bench',
    description: `constant ${o.stepMs} ms decode steps up to ${seqs} sequences${o.speculative ? `, ~${o.speculative.meanTokens} tokens a chunk` : ''}`,
    flavor: 'vllm',
    servedModelName: 'sim/bench',
    maxModelLen: o.maxModelLen ?? 32768,
    kvCapacityTokens: Math.max(4_000_000, 2 * (o.maxModelLen ?? 0)),
    blockSize: 16,
    maxNumSeqs: seqs,
    maxBatchedTokens: 65536,
    prefillTokensPerS: [
      [1024, prefill],
      [32768, prefill],
    ],
    decodeStepMs: [
      [1, o.stepMs],
      [seqs, o.stepMs],
    ],
    decodeContextSlopeMsPerMTokens: 0,
    prefillOnlyStepMs: 0.5,
    speculative: o.speculative ?? null,
    reasoningTokens: 0,
    earlyStopRate: 0,
    engine: { version: 'bench' },
    hardware: { gpuName: 'Simulated GPU', gpuCount: 1, gpuMemoryGb: 24 },
  };
}
