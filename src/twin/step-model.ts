// Decode step time against batch size: values at the measured batch sizes, linear in batch between them (as
// the engine model interpolates; on both seeds closer than log2 spacing, whose low end bends the other way),
// and along the end segments in log2(batch) beyond them (a step grows by less per sequence as batches grow).

export interface StepCurve {
  batch: number[]; // ascending, distinct
  ms: number[];
}

/** Weights of each knot at batch b (a row of the least-squares design for b). */
export function stepWeights(knots: readonly number[], b: number): number[] {
  const w = knots.map(() => 0);
  if (knots.length === 1) {
    w[0] = 1;
    return w;
  }
  let i = knots.findIndex((k) => k >= b);
  const inside = i > 0;
  if (i <= 0) i = i === 0 ? 1 : knots.length - 1; // below the first knot: first segment; above the last: last
  const f = inside ? (v: number) => v : Math.log2;
  const t = (f(b) - f(knots[i - 1]!)) / (f(knots[i]!) - f(knots[i - 1]!));
  w[i - 1] = 1 - t;
  w[i] = t;
  return w;
}

export function stepAt(c: StepCurve, b: number): number {
  const w = stepWeights(c.batch, b);
  const v = w.reduce((s, wi, i) => s + wi * c.ms[i]!, 0);
  const first = c.ms[0]!;
  const last = c.ms[c.ms.length - 1]!;
  // Beyond the ends a step neither gets faster with more sequences nor collapses below a quarter of the end.
  if (b > c.batch[c.batch.length - 1]!) return Math.max(v, last);
  if (b < c.batch[0]!) return Math.min(Math.max(v, first * 0.25), first);
  return v;
}

// Batch sizes at which the profile (linear in batch between points) reproduces the log curve closely.
const GRID = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048];

export function profilePoints(c: StepCurve, upTo: number): Array<[number, number]> {
  const xs = [...new Set([...GRID.filter((g) => g <= upTo), ...c.batch])].sort((a, b) => a - b);
  return xs.map((b) => [b, Math.round(stepAt(c, b) * 1000) / 1000]);
}
