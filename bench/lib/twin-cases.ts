// The hidden engines a twin is judged on (docs/twin.md acceptance): sim profiles the repository does not ship,
// drawn from a shipped profile by perturbing every parameter the fit has to find, with a fixed seed. Their
// parameters never reach the fit: it sees only the figures of the result measured on them.
import { mulberry32 } from '../../src/rng.js';
import type { Profile } from '../../src/sim/profile-schema.js';
import { loadProfile } from '../../src/sim/profiles.js';

const K = 1024;

/** The seeds' matrix: 8 contexts × 8 levels, max output 4096, 30 s windows. */
export const SEED_MATRIX = {
  contexts: [8, 16, 32, 64, 128, 256, 512, 1019].map((k) => k * K),
  concurrency: [1, 2, 4, 8, 16, 32, 64, 128],
  prefillContexts: [8, 16, 32, 64, 128, 256, 512, 1019, 1024]
    .map((k) => k * K)
    .map((c) => (c === 1024 * K ? c - 256 : c)),
};

export interface GeneratedCase {
  profile: Profile;
  restartLossMsPerMTokens: number; // the measuring client's own restart loss (src/twin/restart-loss.ts)
  drawn: string; // the drawn parameters in words, for the bench's output
}

/** The two judges: one drawn from each seed profile. Fixed seeds: the same engines on every machine. */
export const JUDGE_SEEDS: ReadonlyArray<[base: string, seed: number]> = [
  ['rtx-pro-6000x8-glm-5.3-flash', 2701],
  ['h200x4-glm-5.3-flash-dflash', 2702],
];

export function generatedCase(base: string, seed: number): GeneratedCase {
  const b = loadProfile(base);
  const rnd = mulberry32(seed);
  const uniform = (lo: number, hi: number) => lo + (hi - lo) * rnd();
  const factor = (lo: number, hi: number) => Math.exp(uniform(Math.log(lo), Math.log(hi)));
  const oneOf = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const stepScale = factor(0.6, 1.6);
  let prev = 0;
  const decodeStepMs = b.decodeStepMs.map(([n, ms]): [number, number] => {
    prev = Math.max(prev * 1.01, ms * stepScale * factor(0.92, 1.08));
    return [n, Math.round(prev * 100) / 100];
  });
  const prefillScale = factor(0.6, 1.6);
  const prefillTokensPerS = b.prefillTokensPerS.map(([c, r]): [number, number] => [
    c,
    Math.round(r * prefillScale * factor(0.9, 1.1)),
  ]);
  const overhead = Math.round(uniform(40, 160));
  const apiRate = Math.round(uniform(200_000, 700_000));
  const seats = b.maxNumSeqs >= 128 ? oneOf([256, 96, 48]) : Math.round(uniform(24, 96));
  const profile = loadProfile(b, {
    name: `generated-${seed}`,
    description: `drawn from ${base} with seed ${seed} (bench/lib/twin-cases.ts)`,
    decodeStepMs,
    decodeContextSlopeMsPerMTokens: Math.round(uniform(0, 2.5) * 100) / 100,
    prefillTokensPerS,
    maxNumSeqs: seats,
    kvCapacityTokens: Math.round(b.kvCapacityTokens * factor(0.6, 1.6)),
    maxBatchedTokens: oneOf([4096, 8192, 16384]),
    requestOverheadMs: overhead,
    apiTokensPerS: apiRate,
    // The part of the API time spent one request at a time: a share of its fixed and of its per-token part.
    apiSerialMs: Math.round(overhead * uniform(0.05, 0.7)),
    apiSerialTokensPerS: rnd() < 0.3 ? 0 : Math.round(apiRate / uniform(0.1, 0.8)),
    speculative: b.speculative
      ? { k: b.speculative.k, meanTokens: Math.round(uniform(2, 4) * 100) / 100 }
      : null,
  });
  const restartLossMsPerMTokens = rnd() < 0.5 ? 0 : Math.round(uniform(1000, 4000));
  const p = profile;
  const drawn = [
    `steps ${p.decodeStepMs.map(([n, ms]) => `${n}:${ms}`).join(' ')} ms`,
    `slope ${p.decodeContextSlopeMsPerMTokens} ms/M`,
    `prefill ×${prefillScale.toFixed(2)}`,
    `seats ${p.maxNumSeqs}`,
    `KV ${(p.kvCapacityTokens / 1e6).toFixed(2)}M`,
    `batched ${p.maxBatchedTokens}`,
    `API ${p.requestOverheadMs} ms + prompt / ${Math.round(p.apiTokensPerS / 1000)}K, serial ${p.apiSerialMs} ms + prompt / ${Math.round(p.apiSerialTokensPerS / 1000)}K`,
    p.speculative ? `speculative ${p.speculative.meanTokens}` : 'no speculative',
    `restart loss ${restartLossMsPerMTokens} ms/M`,
  ].join(', ');
  return { profile, restartLossMsPerMTokens, drawn };
}
