import type { PrefillPoint } from '../results/schema.js';

// Cold prefill time by prompt length: seconds = a*L + b*L^2. The linear part is the per-token work, the square
// part attention over the prompt so far, which is why a long full-window prompt costs more per token.

export interface PrefillModel {
  a: number; // s per token
  b: number; // s per token^2
}

export interface PrefillSample {
  tokens: number;
  seconds: number;
}

// A run's measured prefill points as samples: each cold request's prompt tokens and seconds to first token.
export function prefillSamples(points: readonly PrefillPoint[]): PrefillSample[] {
  return points.flatMap((p) =>
    p.status === 'Valid'
      ? p.repeats
          .filter((r) => r.promptTokens > 0 && r.ttftMs > 0)
          .map((r) => ({ tokens: r.promptTokens, seconds: r.ttftMs / 1000 }))
      : [],
  );
}

export const prefillSeconds = (m: PrefillModel, tokens: number): number =>
  m.a * tokens + m.b * tokens * tokens;

// From the rate at a short prompt and at a long one: the line through both points of seconds/token.
export function modelFromRates(short: [number, number], long: [number, number]): PrefillModel {
  const [l1, r1] = short;
  const [l2, r2] = long;
  const b = Math.max(0, (1 / r2 - 1 / r1) / (l2 - l1));
  return { a: Math.max(0, 1 / r1 - b * l1), b };
}

// Priors by engine, before the server has shown anything: GPU servers near the seeds (about 10K prompt tok/s at
// 8K, 8.6K at 1M); llama.cpp and Ollama as often on a CPU or a small GPU (2,000 tok/s at 1K, half that at 32K).
const GPU_PRIOR = modelFromRates([8192, 10_000], [1_048_576, 8_600]);
const SMALL_HOST_PRIOR = modelFromRates([1024, 2_000], [32_768, 1_000]);
const PRIORS: Record<string, PrefillModel> = { llamacpp: SMALL_HOST_PRIOR, ollama: SMALL_HOST_PRIOR };

export function priorPrefillModel(engine?: string): PrefillModel {
  return (engine !== undefined ? PRIORS[engine] : undefined) ?? GPU_PRIOR;
}

// Lengths this far apart (longest / shortest) show how per-token time grows; closer ones (the repeats of one
// point: 8,192, 8,193 and 8,198 tokens) only show noise, and a line through them predicted a 1M-token prefill
// 100 times too slow.
const MIN_LENGTH_SPREAD = 1.5;

// What the measured points say: points of one length scale the prior; lengths far enough apart fit
// seconds/token = a + b*L by least squares (b >= 0, a >= 0), so the full-window point is predicted from the
// shorter ones.
export function fitPrefillModel(samples: readonly PrefillSample[], prior: PrefillModel): PrefillModel {
  const pts = samples.filter((s) => s.tokens > 0 && s.seconds > 0 && Number.isFinite(s.seconds));
  if (pts.length === 0) return prior;
  const lengths = pts.map((p) => p.tokens);
  if (Math.max(...lengths) < MIN_LENGTH_SPREAD * Math.min(...lengths)) {
    const k =
      pts.reduce((t, p) => t + p.seconds, 0) / pts.reduce((t, p) => t + prefillSeconds(prior, p.tokens), 0);
    return { a: prior.a * k, b: prior.b * k };
  }
  const xs = pts.map((p) => p.tokens);
  const ys = pts.map((p) => p.seconds / p.tokens);
  const n = pts.length;
  const mx = xs.reduce((t, x) => t + x, 0) / n;
  const my = ys.reduce((t, y) => t + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  const b = Math.max(0, sxy / sxx);
  const a = my - b * mx;
  if (a >= 0) return { a, b };
  // Per-token time through zero: all of it attention.
  const bOnly = xs.reduce((t, x, i) => t + x * ys[i]!, 0) / xs.reduce((t, x) => t + x * x, 0);
  return { a: 0, b: bOnly };
}
