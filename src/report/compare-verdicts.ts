import type { LoadLevel, PrefillPoint, ServiceLevel } from '../results/schema.js';
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
import { cellName, contextLabel, DASH, fmtMs, fmtTokS } from '../format/index.js';
import { isMeasured } from '../cell-rules.js';
import type { DecodeCell } from '../results/schema.js';
import { clientBottleneck } from './anomalies.js';
import { serviceLevelFor } from '../answer/answer.js';
import { judgeLevel, rowLabel } from '../answer/levels.js';
import { byLoad, loadText } from './levels-model.js';

// B against A, cell by cell and point by point, with a verdict each (docs/method.md "Verdicts").

export interface Verdict {
  where: string; // "64K × 16" or "prefill 64K"
  figure: string; // "total tok/s" or "prompt tok/s"
  a: number; // A's figure
  b: number; // B's figure
  comparison: Comparison;
  why?: string; // for 'no interval': which side lacks one and what gives it one
  // Whose client was the bottleneck here: the figures are partly the client's machine's, so the verdict is not
  // the server's; said beside it and kept out of the gate (docs/method.md "Verdicts"). Short in the table's row,
  // with the evidence (how many cells) in the summary and the gate's note.
  notServer?: { short: string; long: string };
  level?: true; // a load level's figure (docs/workloads.md "Reports"), not a cell's
  lowerIsBetter?: true; // a latency: its ratio B/A above 1 is worse
  format?: (v: number) => string; // how A's and B's figures read (tok/s where absent)
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

export function compareRuns(m: CompareModel, a: CompareRun, b: CompareRun, slo?: ServiceLevel): VerdictSet {
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
      ...notServer(busyMachines(comparison, [a, pa], [b, pb])),
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
        ...notServer(boundClients([a, ca], [b, cb])),
      });
    }
  verdicts.push(...levelVerdicts(a, b, slo ?? serviceLevelFor(a.result).slo));
  return { a, b, verdicts };
}

const reqS = (v: number) => `${v.toFixed(2)} req/s`;

// Load levels both runs measured under the same row and load (the same key): goodput under one service level (the
// given one, else A's), TTFT p50 and p90, E2E p50 and output tok/s, each with its stored 95% interval. A level the
// client could not keep to its schedule in either run is not the server's verdict: said beside it, never failed on.
function levelVerdicts(a: CompareRun, b: CompareRun, slo: ServiceLevel): Verdict[] {
  const out: Verdict[] = [];
  const theirs = new Map((b.result.levels ?? []).map((l) => [l.key, l]));
  const rows = [...new Set((a.result.levels ?? []).map((l) => l.row))];
  const ordered = [...(a.result.levels ?? [])].sort(
    (x, y) => rows.indexOf(x.row) - rows.indexOf(y.row) || byLoad(x, y),
  );
  for (const la of ordered) {
    const lb = theirs.get(la.key);
    if (!lb || la.status === 'Failed' || lb.status === 'Failed') continue;
    const where = `${rowLabel(la.row).split(':')[0]} at ${loadText(la.load)}`;
    const bound = [la, lb].flatMap((l, i) => (l.status === 'Client-bound' ? [`${[a, b][i]!.label}'s`] : []));
    const why = bound.length
      ? {
          notServer: {
            short: `${bound.join(' and ')} client fell behind its schedule`,
            long: `${bound.join(' and ')} level was client-bound (the client fell behind its own schedule)`,
          },
        }
      : {};
    const figure = (
      name: string,
      ma: Measured,
      mb: Measured,
      direction: 'higher-is-better' | 'lower-is-better',
      format: (v: number) => string,
    ) => {
      if (ma.value === null || mb.value === null) return;
      const comparison = zeroSide(ma, mb) ?? compareFigure(ma, mb, direction);
      const lacking = [ma.interval ? [] : [a.label], mb.interval ? [] : [b.label]].flat();
      const zero = [ma.value === 0 ? [a.label] : [], mb.value === 0 ? [b.label] : []].flat();
      out.push({
        where,
        figure: name,
        a: ma.value,
        b: mb.value,
        comparison,
        level: true,
        format,
        ...(direction === 'lower-is-better' ? { lowerIsBetter: true as const } : {}),
        ...(comparison.verdict === 'no interval'
          ? {
              why: zero.length
                ? `${zero.join(' and ')} had none: no ratio`
                : `too few requests for an interval in ${lacking.join(' and ') || 'either'}`,
            }
          : {}),
        ...why,
      });
    };
    figure('goodput', goodputMeasured(la, slo), goodputMeasured(lb, slo), 'higher-is-better', reqS);
    for (const [name, q] of [
      ['TTFT p50', 'p50'],
      ['TTFT p90', 'p90'],
    ] as const)
      figure(
        name,
        { value: la.ttftMs[q], interval: la.ttftMs.intervals[q] },
        { value: lb.ttftMs[q], interval: lb.ttftMs.intervals[q] },
        'lower-is-better',
        fmtMs,
      );
    figure(
      'E2E p50',
      { value: la.e2eMs.p50, interval: la.e2eMs.intervals.p50 },
      { value: lb.e2eMs.p50, interval: lb.e2eMs.intervals.p50 },
      'lower-is-better',
      fmtMs,
    );
    figure(
      'output tok/s',
      { value: la.totalTokensPerS, interval: la.totalTokensPerSInterval ?? null },
      { value: lb.totalTokensPerS, interval: lb.totalTokensPerSInterval ?? null },
      'higher-is-better',
      fmtTokS,
    );
  }
  return out;
}

// B's goodput of 0 has no log ratio; where its interval and A's do not overlap, B lost the whole figure and that is
// certain (two disjoint 95% intervals: more than the 99% test asks), a slowdown the gate must see; else unjudged.
function zeroSide(ma: Measured, mb: Measured): Comparison | undefined {
  if (mb.value !== 0 || !ma.value || !ma.interval || !mb.interval || mb.interval.hi >= ma.interval.lo)
    return undefined;
  return { ratio: 0, ratioInterval: null, verdict: 'slower', change: -1, changeHalfWidth: null };
}

// Goodput under the level, with the share's 95% Wilson interval scaled by the judged arrivals: the arrivals are
// the window's, the interval is of how many of them met it.
function goodputMeasured(l: LoadLevel, slo: ServiceLevel): Measured {
  const s = judgeLevel(l, slo).share;
  const lengthS = (l.windowCloseMs - l.windowOpenMs) / 1000;
  if (s?.basis !== 'requests' || !s.judged || !(lengthS > 0)) return { value: null };
  const per = s.judged / lengthS;
  return {
    value: s.met / lengthS,
    interval: s.interval ? { lo: s.interval.lo * per, hi: s.interval.hi * per } : null,
  };
}

const notServer = (why: Verdict['notServer']) => (why ? { notServer: why } : {});

// A cell's own check: "B's client was the bottleneck", "A's and B's clients were the bottleneck".
function boundClients(...sides: Array<[CompareRun, DecodeCell]>): Verdict['notServer'] {
  const who = sides.filter(([, c]) => c.client?.clientBound).map(([r]) => `${r.label}'s`);
  if (who.length === 0) return undefined;
  const text = `${who.join(' and ')} client${who.length > 1 ? 's were' : ' was'} the bottleneck`;
  return { short: text, long: text };
}

// A prefill point is one request at a time, checked by no cell of its own. A run whose machine was busy (other
// work held the CPU, so the event loop stamped arrivals late) taints its point where that lateness, against the
// point's TTFT, could account for the change (a 12 ms late stamp is 24% of a 2K prompt's 50 ms, 1% of a 128K
// prompt's); a client short of CPU only at many users at once does not.
function busyMachines(
  c: Comparison,
  ...sides: Array<readonly [CompareRun, PrefillPoint]>
): Verdict['notServer'] {
  const change = Math.abs(c.change ?? 0);
  const busy = sides.flatMap(([r, p]) => {
    const b = clientBottleneck(r.result);
    const share = b && p.ttftMs ? b.typicalDelayMs / p.ttftMs : 0;
    return b?.busy && share >= change
      ? [
          {
            who: `${r.label}'s`,
            cells: `${b.bound} of ${b.measured}`,
            late: b.typicalDelayMs,
            ttft: p.ttftMs!,
          },
        ]
      : [];
  });
  if (busy.length === 0) return undefined;
  const machines = `${busy.map((b) => b.who).join(' and ')} machine${busy.length > 1 ? 's were' : ' was'} busy`;
  const evidence = busy
    .map(
      (b) =>
        `${b.who} client the bottleneck in ${b.cells} measured cells, its stamps some ${fmtMs(b.late)} late against ` +
        `this point's ${fmtMs(b.ttft)} TTFT`,
    )
    .join('; ');
  return { short: machines, long: `${machines} (${evidence})` };
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

const significant = (v: Verdict) => v.comparison.verdict === 'faster' || v.comparison.verdict === 'slower';

const slowdowns = (vs: VerdictSet, atLeast: number): Verdict[] =>
  vs.verdicts
    .filter((v) => v.comparison.verdict === 'slower' && -(v.comparison.change ?? 0) > atLeast)
    .sort((x, y) => (x.comparison.change ?? 0) - (y.comparison.change ?? 0));

/** The server's significant slowdowns beyond `atLeast`, worst first: what `--fail-on` fails on. */
export const significantSlowdowns = (vs: VerdictSet, atLeast = 0): Verdict[] =>
  slowdowns(vs, atLeast).filter((v) => !v.notServer);

/** Significant slowdowns beyond `atLeast` where a client was the bottleneck: said, never failed on. */
export const clientSlowdowns = (vs: VerdictSet, atLeast = 0): Verdict[] =>
  slowdowns(vs, atLeast).filter((v) => v.notServer);

export function verdictLine(v: Verdict, vs: VerdictSet): string {
  const line = `${v.where}: ${describeComparison(v.comparison, vs.a.label, vs.b.label)} (${v.figure})`;
  return v.notServer ? `${line}, not the server's: ${v.notServer.long}` : line;
}

// The heading over significant verdicts a client shaped (the summary and the gate's note say the same).
export const NOT_SERVER_HEAD =
  "Not the server's (the client was the bottleneck: rerun on a quieter machine or with --workers N; --fail-on ignores these):";

// The lines every compare format shows: counts, the worst slowdowns, the geometric mean of significant ratios.
export function verdictSummary(vs: VerdictSet, worst = 5): string[] {
  const { a, b, verdicts } = vs;
  if (verdicts.length === 0)
    return [
      `No cell${a.result.levels?.length || b.result.levels?.length ? ', load level' : ''} or prefill point was measured by both ${a.label} and ${b.label}.`,
    ];
  const server = verdicts.filter((v) => !v.notServer);
  const count = (k: string, of = server) => of.filter((v) => v.comparison.verdict === k).length;
  const noInterval = count('no interval', verdicts);
  const shaped = verdicts.filter((v) => v.notServer && significant(v));
  const lines = [
    `${b.label} vs ${a.label}: ${count('faster')} faster, ${count('slower')} slower, ${count('no significant difference', verdicts)} no significant difference` +
      (shaped.length ? `, ${shaped.length} not the server's (the client was the bottleneck)` : '') +
      (noInterval ? `, ${noInterval} not judged (no interval)` : '') +
      ` (${VERDICT_RULE}).`,
    ...notJudged(vs),
  ];
  const sig = server.filter(significant);
  // A latency's ratio turned over, so that above 1 is better for every figure the mean takes.
  const gm = geometricMean(sig.map((v) => (v.lowerIsBetter ? 1 / v.comparison.ratio! : v.comparison.ratio!)));
  const turned = sig.some((v) => v.lowerIsBetter) ? ' (latencies as A/B, so above 1 is better)' : '';
  if (gm !== null)
    lines.push(
      `Geometric mean of the significant ratios ${b.label}/${a.label}${turned}: ${gm.toFixed(3)}× over ${sig.length} measurement${sig.length > 1 ? 's' : ''}.`,
    );
  const slow = significantSlowdowns(vs).slice(0, worst);
  if (slow.length) lines.push('Worst slowdowns:', ...slow.map((v) => `  ${verdictLine(v, vs)}`));
  if (shaped.length) lines.push(NOT_SERVER_HEAD, ...shaped.map((v) => `  ${verdictLine(v, vs)}`));
  return lines;
}

/** The summary's lines as paragraphs, each heading with its items ("Worst slowdowns:" and the cells under it). */
export function summaryGroups(lines: readonly string[]): Array<{ text: string; items: string[] }> {
  const groups: Array<{ text: string; items: string[] }> = [];
  for (const l of lines)
    if (l.startsWith('  ') && groups.length) groups[groups.length - 1]!.items.push(l.trim());
    else groups.push({ text: l, items: [] });
  return groups;
}

// The prefill points (and cells) nobody judged, named, with what would give them an interval: the gate cannot
// fail on them, so it says so rather than passing in silence.
export function notJudged(vs: VerdictSet): string[] {
  const none = vs.verdicts.filter((v) => v.comparison.verdict === 'no interval');
  if (none.length === 0) return [];
  const prefill = none.filter((v) => v.where.startsWith('prefill '));
  const cells = none.filter((v) => !v.where.startsWith('prefill ') && !v.level);
  const levels = none.filter((v) => v.level);
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
    ...(levels.length
      ? [
          `Load levels not judged: ${levels.map((v) => `${v.where} (${v.figure})`).join(', ')} (${whys(levels)}).`,
        ]
      : []),
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
    const f = v.format ?? fmtTokS;
    return [
      v.where,
      v.figure,
      f(v.a),
      f(v.b),
      change,
      (c.verdict === 'no interval' ? `not judged: ${v.why ?? 'no interval'}` : c.verdict) +
        (v.notServer ? `, not the server's: ${v.notServer.short}` : ''),
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

/** B, C... against A; load levels' goodput under `slo` (else A's own level). */
export function allVerdicts(m: CompareModel, slo?: ServiceLevel): VerdictSet[] {
  const a = m.runs[0]!;
  return m.runs.slice(1).map((b) => compareRuns(m, a, b, slo));
}
