// Length distributions of the `lengths` workload (docs/workloads.md "lengths"): const(x), uniform(a,b),
// normal(mean,sd) and lognormal(median,sigma), written with token counts like the rest of the tool (8K = 8,192).
import { parseTokenCount } from '../plan/contexts.js';
import type { LengthShape } from '../results/schema.js';
import { standardNormal } from '../rng.js';

// Declared once, by the result's schema (config.workload's `in` and `out`).
export type Shape = LengthShape;

export const SHAPE_SYNTAX = 'const(x), uniform(a,b), normal(mean,sd) or lognormal(median,sigma)';

// A token count written exactly as it parses back: 8192 as 8K, 1000 as 1000.
export function tokensText(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)}M`;
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}K` : String(n);
}

const positiveNumber = (s: string): number | undefined => {
  const v = /^\s*\d+(\.\d+)?\s*$/.test(s) ? Number(s) : NaN;
  return v > 0 ? v : undefined;
};

/** A shape from its text (`normal(8K,2K)`) or a bare token count (a constant); a problem in words otherwise. */
export function parseShape(v: unknown): Shape | string {
  const bad = `expected ${SHAPE_SYNTAX}, with token counts like 8K or 512`;
  if (typeof v === 'number') return Number.isInteger(v) && v > 0 ? { dist: 'const', value: v } : bad;
  if (typeof v !== 'string') return bad;
  const bare = parseTokenCount(v);
  if (bare !== undefined) return { dist: 'const', value: bare };
  const m = /^\s*(const|uniform|normal|lognormal)\s*\(([^()]*)\)\s*$/i.exec(v);
  if (!m) return bad;
  const dist = m[1]!.toLowerCase();
  const args = m[2]!.split(',').map((a) => a.trim());
  const tok = args.map((a) => parseTokenCount(a));
  const want = dist === 'const' ? 1 : 2;
  if (args.length !== want) return `${dist}( ) takes ${want} value${want > 1 ? 's' : ''}: ${bad}`;
  if (dist === 'const' && tok[0] !== undefined) return { dist: 'const', value: tok[0] };
  if (dist === 'uniform' && tok[0] !== undefined && tok[1] !== undefined) {
    if (tok[1] < tok[0]) return `uniform(${args[0]},${args[1]}): the first bound must not pass the second`;
    return { dist: 'uniform', min: tok[0], max: tok[1] };
  }
  if (dist === 'normal' && tok[0] !== undefined && tok[1] !== undefined)
    return { dist: 'normal', mean: tok[0], sd: tok[1] };
  const sigma = positiveNumber(args[1] ?? '');
  if (dist === 'lognormal' && tok[0] !== undefined && sigma !== undefined)
    return { dist: 'lognormal', median: tok[0], sigma };
  return `${v.trim()}: ${bad}${dist === 'lognormal' ? ' (sigma a plain number like 0.5)' : ''}`;
}

export function shapeText(s: Shape): string {
  switch (s.dist) {
    case 'const':
      return `const(${tokensText(s.value)})`;
    case 'uniform':
      return `uniform(${tokensText(s.min)},${tokensText(s.max)})`;
    case 'normal':
      return `normal(${tokensText(s.mean)},${tokensText(s.sd)})`;
    case 'lognormal':
      return `lognormal(${tokensText(s.median)},${s.sigma})`;
  }
}

// A normal draw outside [1, max] is drawn again (truncation, not clamping, so the mass does not pile up at a
// bound); after this many tries it is clamped, which only a mean far outside the bounds reaches.
const TRUNCATION_TRIES = 64;

/** One whole number of tokens from the shape, in [1, max]. */
export function drawShape(s: Shape, rng: () => number, max = Number.MAX_SAFE_INTEGER): number {
  const clamp = (x: number) => Math.min(max, Math.max(1, Math.round(x)));
  switch (s.dist) {
    case 'const':
      return clamp(s.value);
    case 'uniform':
      return clamp(s.min + Math.floor(rng() * (s.max - s.min + 1)));
    case 'normal':
      for (let i = 0; i < TRUNCATION_TRIES; i++) {
        const x = Math.round(s.mean + s.sd * standardNormal(rng));
        if (x >= 1 && x <= max) return x;
      }
      return clamp(s.mean);
    case 'lognormal':
      return clamp(s.median * Math.exp(s.sigma * standardNormal(rng)));
  }
}
