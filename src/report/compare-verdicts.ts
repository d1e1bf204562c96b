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
import { cellName, contextLabel, DASH, fmtTokS } from '../format/index.js';
import { isMeasured } from '../cell-rules.js';

// B against A, cell by cell and point by point, with a verdict each (docs/method.md "Verdicts").

export interface Verdict {
  where: string; // "64K × 16" or "prefill 64K"
  figure: string; // "total tok/s" or "prompt tok/s"
  a: number; // A's figure
  b: number; // B's figure
  comparison: Comparison;
  why?: string; // for 'no interval': which side lacks one and what gives it one
}

export interface VerdictSet {
  a: CompareRun;
  b: CompareRun;
  verdicts: Verdict[];
}

// A prefill point's 95% interval from the spread of its repeats that are not outliers, on the log scale where a
// rate's noise is relative and the verdict works: median × exp(± t × s / √n), s the spread of ln(tok/s). Never
// below zero, however few or far apart the repeats; none from a single repeat (docs/method.md "Prefill").
export function prefillMeasured(p: PrefillPoint | undefined): Measured {
  if (!p || p.tokensPerS === null || p.tokensPerS <= 0) return { value: null };
  const logs = p.repeats.filter((r) => !r.outlier && r.tokensPerS > 0).map((r) => Math.log(r.tokensPerS));
  if (logs.length < 2) return { value: p.tokensPerS };
  const mean = logs.reduce((s, v) => s + v, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((s, v) => s + (v - mean) ** 2, 0) / (logs.length - 1));
  const half = (tQuantile(0.975, logs.length - 1) * sd) / Math.sqrt(logs.length);
  const interval: Interval = { lo: p.tokensPerS * Math.exp(-half), hi: p.tokensPerS * Math.exp(half) };
  return { value: p.tokensPerS, interval };
}

export function compareRuns(m: CompareModel, a: CompareRun, b: CompareRun): VerdictSet {
  const verdicts: Verdict[] = [];
  for (const ctx of m.prefillContexts) {
    const pa = findPrefill(a.result, ctx);
    const pb = findPrefill(b.result, ctx);
    if (!pa?.tokensPerS || !pb?.tokensPerS) continue;
    const [ma, mb] = [prefillMeasured(pa), prefillMeasured(pb)];
    const comparison = compareFigure(ma, mb, 'higher-is-better');
    const lacking = [ma.interval ? [] : [a], mb.interval ? [] : [b]].flat();
    const kept = [ma.interval ? [] : [[a, pa] as const], mb.interval ? [] : [[b, pb] as const]].flat();
    verdicts.push({
      where: `prefill ${contextLabel(ctx)}`,
      figure: 'prompt tok/s',
      a: pa.tokensPerS,
      b: pb.tokensPerS,
      comparison,
      ...(comparison.verdict === 'no interval'
        ? { why: outliersLeftOne(kept) ?? noIntervalWhy(lacking, 'prefill') }
        : {}),
    });
  }
  for (const ctx of m.contexts)
    for (const n of m.concurrency) {
      const ca = getCell(a, ctx, n);
      const cb = getCell(b, ctx, n);
      if (!ca || !cb || !isMeasured(ca.status) || !isMeasured(cb.status)) continue;
      if (!ca.totalTokensPerS || !cb.totalTokensPerS) continue;
      const comparison = compareFigure(
        { value: ca.totalTokensPerS, interval: ca.intervals?.totalTokensPerS ?? null },
        { value: cb.totalTokensPerS, interval: cb.intervals?.totalTokensPerS ?? null },
        'higher-is-better',
      );
      const lacking = [
        ca.intervals?.totalTokensPerS ? [] : [a],
        cb.intervals?.totalTokensPerS ? [] : [b],
      ].flat();
      verdicts.push({
        where: cellName({ contextTokens: ctx, concurrency: n }),
        figure: 'total tok/s',
        a: ca.totalTokensPerS,
        b: cb.totalTokensPerS,
        comparison,
        ...(comparison.verdict === 'no interval' ? { why: noIntervalWhy(lacking, 'cell') } : {}),
      });
    }
  return { a, b, verdicts };
}

// A point measured several times whose other repeats were flagged as outliers has one left, and no spread: said
// as such, not as "measured one repeat" (more repeats by default would not help; a quieter rerun would).
function outliersLeftOne(kept: ReadonlyArray<readonly [CompareRun, PrefillPoint]>): string | undefined {
  const cut = kept.filter(([r, p]) => r.result.status !== 'imported' && p.repeats.length > 1);
  if (cut.length === 0 || cut.length < kept.length) return undefined;
  const [, p] = cut[0]!;
  return (
    `${cut.map(([r]) => r.label).join(' and ')} kept one of ${p.repeats.length} repeats, the others flagged as ` +
    `outliers: no spread; rerun on a quieter machine`
  );
}

// Why a figure has no interval: an imported v0.6.2 report keeps none; a prefill point of one repeat has no spread.
function noIntervalWhy(lacking: CompareRun[], kind: 'prefill' | 'cell'): string {
  const imported = lacking.filter((r) => r.result.status === 'imported');
  const who = (rs: CompareRun[]) => rs.map((r) => r.label).join(' and ');
  if (imported.length)
    return `${who(imported)} ${imported.length > 1 ? 'are imported reports' : 'is an imported report'}: no intervals`;
  if (kind === 'prefill')
    return `${who(lacking)} measured one repeat${lacking.length > 1 ? ' each' : ''}: no spread`;
  return `no interval in ${who(lacking)}`;
}

// The confidence levels, said once wherever verdicts are shown (docs/ci.md says the same).
export const VERDICT_RULE =
  'significant: the 99% interval of the log ratio excludes no change and the change is at least 2%; ± is the 95% interval';

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
      (noInterval ? `, ${noInterval} not judged (no interval)` : '') +
      ` (${VERDICT_RULE}).`,
    ...notJudged(vs),
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

// The prefill points (and cells) nobody judged, named, with what would give them an interval: the gate cannot
// fail on them, so it says so rather than passing in silence.
export function notJudged(vs: VerdictSet): string[] {
  const none = vs.verdicts.filter((v) => v.comparison.verdict === 'no interval');
  if (none.length === 0) return [];
  const prefill = none.filter((v) => v.where.startsWith('prefill '));
  const cells = none.filter((v) => !v.where.startsWith('prefill '));
  const fix = prefill.some((v) => v.why?.includes('one repeat'))
    ? '; --prefill-repeats 3, the default, on both runs gives each point an interval'
    : '';
  const whys = (vs: Verdict[]) => [...new Set(vs.map((v) => v.why))].join('; ');
  return [
    ...(prefill.length
      ? [
          `Prefill not judged at ${prefill.map((v) => v.where.slice('prefill '.length)).join(', ')} (${whys(prefill)}${fix}).`,
        ]
      : []),
    ...(cells.length ? [`Cells not judged: ${cells.map((v) => v.where).join(', ')} (${whys(cells)}).`] : []),
  ];
}

// Every verdict as a row: where, figure, A, B, change ± 95% half width, verdict (md, html, --verbose).
export function verdictRows(vs: VerdictSet): string[][] {
  return vs.verdicts.map((v) => {
    const c = v.comparison;
    const change =
      c.change === null
        ? DASH
        : `${c.change >= 0 ? '+' : '−'}${fmtPct(c.change)}${c.changeHalfWidth === null ? '' : ` ± ${fmtPct(c.changeHalfWidth)}`}`;
    return [
      v.where,
      v.figure,
      fmtTokS(v.a),
      fmtTokS(v.b),
      change,
      c.verdict === 'no interval' ? `not judged: ${v.why ?? 'no interval'}` : c.verdict,
    ];
  });
}

export const VERDICT_HEADS = (vs: VerdictSet): string[] => [
  'Where',
  'Figure',
  vs.a.label,
  vs.b.label,
  'Change',
  'Verdict',
];

// 9.7%, 10%: one decimal under ten.
function fmtPct(x: number): string {
  const tenths = Math.round(Math.abs(x) * 1000) / 10;
  return `${tenths >= 10 ? Math.round(tenths) : tenths.toFixed(1)}%`;
}

export function allVerdicts(m: CompareModel): VerdictSet[] {
  const a = m.runs[0]!;
  return m.runs.slice(1).map((b) => compareRuns(m, a, b));
}
