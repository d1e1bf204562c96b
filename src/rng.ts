// mulberry32: a small seeded PRNG, shared by the prompt factory, the sim and the load models (all need the same
// numbers from the same seed on every machine). Returns [0, 1). With it, the few variates they draw from.
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stable 32-bit hash of a string (FNV-1a), to derive seeds from run ids, rows and rates. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Exponential with mean 1 (inversion; 1 - u is in (0, 1], so the log is finite). */
export const exponential = (rng: () => number): number => -Math.log(1 - rng());

/** Standard normal (Box–Muller, one of the pair: two uniforms a draw, no state between draws). */
export function standardNormal(rng: () => number): number {
  const u = 1 - rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/**
 * Gamma with this shape and scale 1 (Marsaglia and Tsang, ACM TOMS 26(3), 2000): a squeeze that accepts over
 * 95% of its tries at any shape; a shape below 1 is drawn at shape + 1 and scaled by u^(1/shape).
 */
export function gammaVariate(rng: () => number, shape: number): number {
  if (shape < 1) return gammaVariate(rng, shape + 1) * Math.pow(1 - rng(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = standardNormal(rng);
    const v0 = 1 + c * x;
    if (v0 <= 0) continue;
    const v = v0 * v0 * v0;
    const u = 1 - rng();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}
