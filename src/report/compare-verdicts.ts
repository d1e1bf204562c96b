import type { PrefillPoint } from '../results/schema.js';
import type { Interval } from '../stats/interval.js';
import { tQuantile } from '../stats/interval.js';
import {
  compareFigure,
  describeComparison,
  geometricMean,
  type Comparison,
  type Measured,
} from '../stats/verdict.js';
import { findPrefill, getCell, type CompareModel, type CompareRun } from './compare-model.js';
import { cellName, contextLabel } from '../format/index.js';
import { isMeasured } from '../cell-rules.js';

// B against A, cell by cell and point by point, with a verdict each (docs/method.md "Verdicts").

export interface Verdict {
  where: string; // "64K × 16" or "prefill 64K"
  figure: string; // "total tok/s" or "prompt tok/s"
  comparison: Comparison;
}

export interface VerdictSet {
  a: CompareRun;
  b: CompareRun;
  verdicts: Verdict[];
}

// A prefill point's interval from the spread of its repeats (mean ± t × s / √n); none from a single repeat.
export function prefillMeasured(p: PrefillPoint | undefined): Measured {
  if (!p || p.tokensPerS === null) return { value: null };
  const reps = p.repeats.filter((r) => !r.outlier).map((r) => r.tokensPerS);
  if (reps.length < 2) return { value: p.tokensPerS };
  const mean = reps.reduce((s, v) => s + v, 0) / reps.length;
  const sd = Math.sqrt(reps.reduce((s, v) => s + (v - mean) ** 2, 0) / (reps.length - 1));
  const half = (tQuantile(0.975, reps.length - 1) * sd) / Math.sqrt(reps.length);
  const interval: Interval = { lo: Math.max(1e-9, p.tokensPerS - half), hi: p.tokensPerS + half };
  return { value: p.tokensPerS, interval };
}

export function compareRuns(m: CompareModel, a: CompareRun, b: CompareRun): VerdictSet {
  const verdicts: Verdict[] = [];
  for (const ctx of m.prefillContexts) {
    const pa = findPrefill(a.result, ctx);
    const pb = findPrefill(b.result, ctx);
    if (!pa?.tokensPerS || !pb?.tokensPerS) continue;
    verdicts.push({
      where: `prefill ${contextLabel(ctx)}`,
      figure: 'prompt tok/s',
      comparison: compareFigure(prefillMeasured(pa), prefillMeasured(pb), 'higher-is-better'),
    });
  }
  for (const ctx of m.contexts)
    for (const n of m.concurrency) {
      const ca = getCell(a, ctx, n);
      const cb = getCell(b, ctx, n);
      if (!ca || !cb || !isMeasured(ca.status) || !isMeasured(cb.status)) continue;
      if (!ca.totalTokensPerS || !cb.totalTokensPerS) continue;
      verdicts.push({
        where: cellName({ contextTokens: ctx, concurrency: n }),
        figure: 'total tok/s',
        comparison: compareFigure(
          { value: ca.totalTokensPerS, interval: ca.intervals?.totalTokensPerS ?? null },
          { value: cb.totalTokensPerS, interval: cb.intervals?.totalTokensPerS ?? null },
          'higher-is-better',
        ),
      });
    }
  return { a, b, verdicts };
}

export const significantSlowdowns = (vs: VerdictSet, atLeast = 0): Verdict[] =>
  vs.verdicts
    .filter((v) => v.comparison.verdict === 'slower' && -(v.comparison.change ?? 0) > atLeast)
    .sort((x, y) => (x.comparison.change ?? 0) - (y.comparison.change ?? 0));

export function verdictLine(v: Verdict, vs: VerdictSet): string {
  return `${v.where}: ${describeComparison(v.comparison, vs.a.label, vs.b.label)} (${v.figure})`;
}

// The lines every compare format shows: counts, the worst slowdowns, the geometric mean of significant ratios.
export function verdictSummary(vs: VerdictSet, worst = 5): string[] {
  const { a, b, verdicts } = vs;
  if (verdicts.length === 0)
    return [`No cell or prefill point was measured by both ${a.label} and ${b.label}.`];
  const count = (k: string) => verdicts.filter((v) => v.comparison.verdict === k).length;
  const noInterval = count('no interval');
  const lines = [
    `${b.label} vs ${a.label}: ${count('faster')} faster, ${count('slower')} slower, ${count('no significant difference')} no significant difference` +
      (noInterval ? `, ${noInterval} without intervals (significance unknown)` : '') +
      ` (99% test on the log ratio, changes under 2% ignored).`,
  ];
  const sig = verdicts.filter((v) => v.comparison.verdict === 'faster' || v.comparison.verdict === 'slower');
  const gm = geometricMean(sig.map((v) => v.comparison.ratio!));
  if (gm !== null)
    lines.push(
      `Geometric mean of the significant ratios ${b.label}/${a.label}: ${gm.toFixed(3)}× over ${sig.length} measurement${sig.length > 1 ? 's' : ''}.`,
    );
  const slow = significantSlowdowns(vs).slice(0, worst);
  if (slow.length) lines.push('Worst slowdowns:', ...slow.map((v) => `  ${verdictLine(v, vs)}`));
  return lines;
}

export function allVerdicts(m: CompareModel): VerdictSet[] {
  const a = m.runs[0]!;
  return m.runs.slice(1).map((b) => compareRuns(m, a, b));
}
